import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { CUSTOMER_EVENTS_KEY } from '../../database/hot-row-keys';
import { HotRowWrites } from '../../database/hot-row-writes';
import { PARTICIPANT_COLUMNS, ROOM_COLUMNS, ROOM_FROM } from '../rooms/room-queries';
import type { CustomerEventType } from './event-types';
import type { Sql } from '../../database/sql';

/** A change customers hear about; room events carry the room as GET /v1/rooms/{id} shows it when the transaction ends. */
export type CustomerEvent =
  | { organizationId: string; type: 'room.started' | 'room.ended'; roomId: string }
  | { organizationId: string; type: Exclude<CustomerEventType, 'room.started' | 'room.ended'>; roomId?: string; data: object };

/** Delivery attempts: the first, then one per wait of the retry schedule. */
export function maxAttempts(retryScheduleMs: number[]): number {
  return retryScheduleMs.length + 1;
}

/**
 * The outbox of customer webhooks: an event and its deliveries (one per subscribed endpoint) are
 * written in the transaction of the change, last (see HotRowWrites), and only for organizations
 * that have endpoints. Committing notifies the dispatcher; a rollback sends nothing.
 */
@Injectable()
export class CustomerEvents {
  constructor(
    private readonly hot: HotRowWrites,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async emit(tx: Sql, event: CustomerEvent): Promise<void> {
    await this.hot.append(tx, CUSTOMER_EVENTS_KEY, event, (events) => this.write(tx, events));
  }

  private async write(tx: Sql, events: CustomerEvent[]): Promise<void> {
    const endpoints = (await tx.rows(
      `SELECT id, organization_id, events FROM webhook_endpoints WHERE organization_id = ANY($1) AND deleted_at IS NULL ORDER BY created_at, id`,
      [[...new Set(events.map((e) => e.organizationId))]],
    )) as { id: string; organization_id: string; events: string[] | null }[];
    const targets = events
      .map((event) => ({
        event,
        endpoints: endpoints.filter(
          (e) => e.organization_id === event.organizationId && (e.events === null || e.events.includes(event.type)),
        ),
      }))
      .filter((t) => t.endpoints.length > 0);
    if (targets.length === 0) return;
    const rooms = await this.roomViews(
      tx,
      targets.flatMap((t) => ('data' in t.event ? [] : [t.event.roomId])),
    );
    const createdAt = new Date().toJSON();
    const rows = targets.map(({ event }) => {
      const id = `evt_${randomBytes(16).toString('hex')}`;
      const data = 'data' in event ? event.data : rooms.get(event.roomId);
      return {
        id,
        organizationId: event.organizationId,
        type: event.type,
        body: JSON.stringify({ id, type: event.type, created_at: createdAt, data }),
      };
    });
    const inserted = (await tx.rows(
      `INSERT INTO webhook_events (id, organization_id, type, body)
       SELECT id, organization_id, type, body FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS e(id, organization_id, type, body, n)
        ORDER BY n RETURNING seq, id`,
      [rows.map((r) => r.id), rows.map((r) => r.organizationId), rows.map((r) => r.type), rows.map((r) => r.body)],
    )) as { seq: number; id: string }[];
    const seqOf = new Map(inserted.map((row) => [row.id, row.seq]));
    const deliveries = targets.flatMap(({ event, endpoints: subscribed }, i) =>
      subscribed.map((endpoint) => ({
        endpointId: endpoint.id,
        organizationId: event.organizationId,
        eventSeq: seqOf.get(rows[i].id)!,
        lane: event.roomId ?? null,
      })),
    );
    await tx.rows(
      `INSERT INTO webhook_deliveries (endpoint_id, organization_id, event_seq, lane, max_attempts, next_attempt_at)
       SELECT endpoint_id, organization_id, event_seq, lane, $5, now()
         FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[]) WITH ORDINALITY AS d(endpoint_id, organization_id, event_seq, lane, n)
        ORDER BY n`,
      [
        deliveries.map((d) => d.endpointId),
        deliveries.map((d) => d.organizationId),
        deliveries.map((d) => d.eventSeq),
        deliveries.map((d) => d.lane),
        maxAttempts(this.config.webhooks.retryScheduleMs),
      ],
    );
  }

  /** The rooms as GET /v1/rooms/{id} shows them, serialized the same way. */
  private async roomViews(tx: Sql, roomIds: string[]): Promise<Map<string, object>> {
    if (roomIds.length === 0) return new Map();
    const rooms = (await tx.rows(`SELECT ${ROOM_COLUMNS} FROM ${ROOM_FROM} WHERE r.id = ANY($1)`, [roomIds])) as { id: string }[];
    const participants = (await tx.rows(
      `SELECT c.room_id, ${PARTICIPANT_COLUMNS} FROM connections c WHERE c.room_id = ANY($1) ORDER BY c.joined_at, c.id`,
      [roomIds],
    )) as { room_id: string }[];
    return new Map(
      rooms.map((room) => [
        room.id,
        { ...room, participants: participants.filter((p) => p.room_id === room.id).map(({ room_id: _roomId, ...rest }) => rest) },
      ]),
    );
  }
}
