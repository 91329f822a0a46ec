import { Injectable } from '@nestjs/common';
import type { Tx } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type { IDeleteSpentQuery, IInsertTicketQuery, IRedeemQuery, ITicketStateQuery } from './stream-tickets.repository.types';

const INSERT_TICKET = sql<IInsertTicketQuery>`INSERT INTO event_stream_tickets (ticket_hash, organization_id, user_id, api_key_id, expires_at)
  VALUES ($ticketHash!, $organizationId!, $userId!, $apiKeyId, now() + make_interval(secs => $seconds!))
  RETURNING expires_at`;

/**
 * Spends the ticket (once) and reads who it acts for as they are now: the member's current role (null:
 * no longer a member) and, for a ticket a key asked for, the key's scopes and whether it is still live.
 */
const REDEEM = sql<IRedeemQuery>`WITH spent AS (
    UPDATE event_stream_tickets SET used_at = clock_timestamp()
     WHERE ticket_hash = $ticketHash! AND used_at IS NULL AND expires_at > now()
    RETURNING organization_id, user_id, api_key_id)
  SELECT s.organization_id, s.api_key_id, m.role, k.scopes,
         (s.api_key_id IS NULL OR (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()))) AS "key_live!",
         u.id AS user_id, u.email, u.first_name, u.last_name, u.image_url, u.created_at AS user_created_at
    FROM spent s JOIN users u ON u.id = s.user_id
    LEFT JOIN memberships m ON m.organization_id = s.organization_id AND m.user_id = s.user_id
    LEFT JOIN api_keys k ON k.id = s.api_key_id AND k.organization_id = s.organization_id`;

/** Why a ticket was not redeemed, for the 401's words. */
const TICKET_STATE = sql<ITicketStateQuery>`SELECT used_at, expires_at FROM event_stream_tickets WHERE ticket_hash = $ticketHash!`;

const DELETE_SPENT = sql<IDeleteSpentQuery>`DELETE FROM event_stream_tickets WHERE expires_at < now() - interval '1 day'`;

/** `event_stream_tickets`: single-use, short-lived stand-ins for a bearer credential, for `EventSource`. */
@Injectable()
export class StreamTicketsRepository {
  async insert(
    ticket: { ticketHash: Buffer; organizationId: string; userId: string; apiKeyId: string | null; seconds: number },
    tx: Tx,
  ): Promise<Date> {
    const [row] = await tx.rows(INSERT_TICKET, ticket);
    return row.expires_at;
  }

  async redeem(ticketHash: Buffer, tx: Tx) {
    const [row] = await tx.rows(REDEEM, { ticketHash });
    return row ?? null;
  }

  async state(ticketHash: Buffer, tx: Tx): Promise<{ usedAt: Date | null; expiresAt: Date } | null> {
    const [row] = await tx.rows(TICKET_STATE, { ticketHash });
    return row ? { usedAt: row.used_at, expiresAt: row.expires_at } : null;
  }

  /** Removes tickets expired more than a day ago; how many. */
  async deleteSpent(tx: Tx): Promise<number> {
    return tx.count(DELETE_SPENT);
  }
}
