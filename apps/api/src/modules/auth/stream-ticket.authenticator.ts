import { isPermission, type Role } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { DatabaseClient } from '../../database/database.client';
import { StreamTicketsRepository } from './stream-tickets.repository';

/** How long a stream ticket may wait for its one use. */
export const STREAM_TICKET_SECONDS = 60;
const PREFIX = 'est_';

const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest();

/**
 * Stream tickets: `EventSource` cannot send an Authorization header, so a caller trades its credential
 * for a ticket (single use, 60 s) that opens one stream as that caller, with the permissions they hold
 * when it is used.
 */
@Injectable()
export class StreamTicketAuthenticator {
  constructor(
    private readonly database: DatabaseClient,
    private readonly tickets: StreamTicketsRepository,
  ) {}

  async issue(actor: Actor): Promise<{ ticket: string; expires_at: Date }> {
    const ticket = PREFIX + randomBytes(32).toString('base64url');
    const expiresAt = await this.database.oneStatement((tx) =>
      this.tickets.insert(
        {
          ticketHash: hashOf(ticket),
          organizationId: actor.organizationId,
          userId: actor.userId,
          apiKeyId: actor.apiKeyId,
          seconds: STREAM_TICKET_SECONDS,
        },
        tx,
      ),
    );
    return { ticket, expires_at: expiresAt };
  }

  /** The caller the ticket stands for, as they are now; 401 saying why for one unknown, used, expired or whose caller lost access. */
  async authenticate(ticket: string): Promise<Actor> {
    const ticketHash = hashOf(ticket);
    const row = await this.database.oneStatement((tx) => this.tickets.redeem(ticketHash, tx));
    if (!row) throw ApiError.unauthorized(await this.whyRefused(ticketHash));
    if (row.role === null || !row.key_live) {
      throw ApiError.unauthorized('The credential that asked for this stream ticket is no longer valid.');
    }
    return {
      organizationId: row.organization_id,
      role: row.role as Role,
      scopes: row.api_key_id === null ? null : (row.scopes?.filter(isPermission) ?? null),
      userId: row.user_id,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      imageUrl: row.image_url,
      userCreatedAt: row.user_created_at,
      apiKeyId: row.api_key_id,
      emailVerified: false,
      requestId: null,
      ip: null,
    };
  }

  private async whyRefused(ticketHash: Buffer): Promise<string> {
    const state = await this.database.oneStatement((tx) => this.tickets.state(ticketHash, tx));
    if (!state) return 'Unknown stream ticket: ask for one with POST /v1/events/stream-tickets.';
    if (state.usedAt) return 'This stream ticket was already used: a ticket opens one stream; ask for a new one.';
    return `This stream ticket expired at ${state.expiresAt.toISOString()}: ask for a new one.`;
  }
}
