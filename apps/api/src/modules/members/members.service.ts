import type { Role } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import { DatabaseClient } from '../../database/database.client';
import { MembershipsRepository, type MemberRow, type UserOrganizationRow } from '../organizations/memberships.repository';
import { AuditLogService } from '../audit/audit-log.service';

/**
 * An organization's members and their roles. The owner rules: only an owner makes or unmakes an owner,
 * and an organization never has zero owners (409). A removed member's keys are revoked with the removal;
 * a changed role applies to the member's sessions and keys from the next request (nothing caches it).
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly memberships: MembershipsRepository,
    private readonly audit: AuditLogService,
  ) {}

  async list(actor: Actor, query: PageQueryDto): Promise<Page<MemberRow>> {
    return toPage(await this.memberships.page(actor.organizationId, query.limit + 1, query.offset), query);
  }

  async organizationsOf(actor: Actor): Promise<UserOrganizationRow[]> {
    return this.memberships.organizationsOf(actor.userId);
  }

  async changeRole(actor: Actor, userId: string, role: Role): Promise<MemberRow> {
    await this.database.transaction(async (tx) => {
      const roles = await this.memberships.lockMembers(actor.organizationId, tx);
      const current = this.memberOf(roles, userId);
      if (current === role) return;
      this.ownerRules(actor, roles, current, role === 'owner');
      await this.memberships.changeRole(actor.organizationId, userId, role, tx);
      await this.audit.record(tx, actor, {
        action: 'member.role_changed',
        target: { type: 'member', id: userId },
        details: { from: current, to: role },
      });
    });
    const [member] = await this.memberships.page(actor.organizationId, 1, 0, userId);
    return member;
  }

  /** Removes the member (the route lets a member remove themselves without `members:write`). */
  async remove(actor: Actor, userId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      const roles = await this.memberships.lockMembers(actor.organizationId, tx);
      const current = this.memberOf(roles, userId);
      this.ownerRules(actor, roles, current, false);
      await this.memberships.remove(actor.organizationId, userId, tx);
      await this.audit.record(tx, actor, { action: 'member.removed', target: { type: 'member', id: userId }, details: { role: current } });
    });
  }

  private memberOf(roles: Map<string, Role>, userId: string): Role {
    const role = roles.get(userId);
    if (!role) throw ApiError.notFound('Member not found.');
    return role;
  }

  /** Only an owner touches an owner; the last owner stays one. */
  private ownerRules(actor: Actor, roles: Map<string, Role>, current: Role, becomesOwner: boolean): void {
    if ((current === 'owner' || becomesOwner) && actor.role !== 'owner') {
      throw ApiError.forbidden('Only an owner makes, unmakes or removes an owner.');
    }
    const owners = [...roles.values()].filter((role) => role === 'owner').length;
    if (current === 'owner' && !becomesOwner && owners === 1) {
      throw ApiError.conflict('This is the organization’s last owner: make another member an owner first.');
    }
  }
}
