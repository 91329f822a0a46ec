import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { describeSecret, generateApiKeySecret, hashApiKeySecret } from '../../common/auth/api-key-secret';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { ApiKeyView, CreatedApiKeyView, NewKeyRequest } from './api-key.dto';
import { PERMISSIONS, ROLE_PERMISSIONS, type Permission } from '@app/domain';
import type { ApiKeyRow } from './api-keys.repository';
import { DatabaseClient } from '../../database/database.client';
import { ApiKeysRepository } from './api-keys.repository';
import { AuditLogService } from '../audit/audit-log.service';

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly keys: ApiKeysRepository,
    private readonly audit: AuditLogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A key of the caller's: scoped to what it asks (each within the caller's role, and a scoped key's own
   * scopes: 403 otherwise), or to everything the caller may do.
   */
  async create(actor: Actor, request: NewKeyRequest): Promise<CreatedApiKeyView> {
    const held = ROLE_PERMISSIONS[actor.role].filter((permission) => actor.scopes === null || actor.scopes.includes(permission));
    const beyond = (request.scopes ?? []).filter((permission) => !held.includes(permission));
    if (beyond.length > 0) throw ApiError.forbidden(`A key cannot be given ${beyond.join(', ')}: you do not hold it.`);
    return this.createFor(
      actor.organizationId,
      actor.userId,
      request.name,
      { scopes: request.scopes ?? held, expiresAt: request.expiresAt },
      actor,
    );
  }

  /**
   * Also used by the operator CLI, which has no actor yet (its key holds every permission of the owner;
   * audited as the operator's). The organization's row is locked while its active keys are counted, so
   * concurrent creations never pass the cap together. The key and its event are written before the
   * lock, so concurrent creations in one organization queue only for the count and the commit; the
   * count then includes this key, and a creation that makes it pass the cap rolls both back.
   */
  async createFor(
    organizationId: string,
    userId: string,
    name: string,
    limits: { scopes: Permission[] | null; expiresAt: Date | null } = { scopes: null, expiresAt: null },
    by: Actor | null = null,
  ): Promise<CreatedApiKeyView> {
    const secret = generateApiKeySecret();
    const { keyPrefix, keyLast4 } = describeSecret(secret);
    const cap = this.config.maxActiveApiKeysPerOrganization;
    const keyHash = hashApiKeySecret(secret, this.config.apiKeyPepper);
    const view = await this.database.transaction(async (tx) => {
      const key = await this.keys.insert(organizationId, { userId, name, keyPrefix, keyLast4, keyHash, ...limits }, tx);
      await this.audit.record(tx, by ?? { type: 'operator', organizationId }, {
        action: 'api_key.created',
        target: { type: 'api_key', id: key.id },
        // Its prefix and last characters are shown in the key list too; the secret never is.
        details: { name, key_prefix: keyPrefix, key_last4: keyLast4, user_id: userId, scopes: limits.scopes, expires_at: limits.expiresAt },
      });
      await this.keys.lockOrganization(organizationId, tx);
      if ((await this.keys.countActive(organizationId, tx)) > cap) {
        throw ApiError.conflict(`The organization already has ${cap} active API keys, the most it may have: revoke one first.`);
      }
      return key;
    });
    return { ...keyView(view), key: secret };
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<ApiKeyView>> {
    return toPage((await this.keys.listActive(actor.organizationId, query.limit + 1, query.offset)).map(keyView), query);
  }

  async revoke(actor: Actor, keyId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      if (!(await this.keys.revoke(actor.organizationId, keyId, tx))) throw ApiError.notFound('API key not found.');
      await this.audit.record(tx, actor, { action: 'api_key.revoked', target: { type: 'api_key', id: keyId } });
    });
  }
}

/** A key as shown: a key made before scopes existed (none stored) may do all its creator's role allows. */
const keyView = (row: ApiKeyRow): ApiKeyView => ({ ...row, scopes: row.scopes ?? [...PERMISSIONS] });
