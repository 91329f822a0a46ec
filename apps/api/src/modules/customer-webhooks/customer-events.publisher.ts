import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { CUSTOMER_EVENTS_KEY } from '../../database/hot-row-keys';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import type { CustomerEventType } from './event-types';
import type { Tx } from '../../database/sql';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { RoomsRepository } from '../rooms/rooms.repository';

/** A room's totals: the figures `room.usage_corrected` says they were before. */
export interface RoomTotals {
  total_connection_minutes: number;
  total_charged_cents: number;
}

type RoomViewEventType = 'room.started' | 'room.ended' | 'room.usage_corrected';

/** A change customers hear about; room events carry the room as GET /v1/rooms/{id} shows it when the transaction ends. */
export type CustomerEvent =
  | { organizationId: string; type: 'room.started' | 'room.ended'; roomId: string }
  | { organizationId: string; type: 'room.usage_corrected'; roomId: string; previousTotals: RoomTotals }
  | { organizationId: string; type: Exclude<CustomerEventType, RoomViewEventType>; roomId?: string; data: object };

/** A settled room whose totals a transaction changes, as it was locked (before the change). */
export interface CorrectedRoom {
  id: string;
  organization_id: string;
  total_connection_minutes: number;
  total_charged_cents: number;
}

/** Delivery attempts: the first, then one per wait of the retry schedule. */
export function maxAttempts(retryScheduleMs: number[]): number {
  return retryScheduleMs.length + 1;
}

/**
 * The event log and outbox of customer webhooks: every event, and its deliveries (one per subscribed
 * endpoint), is written in the transaction of the change, last (see HotRowWritesService). Committing
 * notifies the dispatcher and the event streams; a rollback writes nothing.
 */
@Injectable()
export class CustomerEventsPublisher {
  constructor(
    private readonly hot: HotRowWritesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly rooms: RoomsRepository,
  ) {}

  async emit(tx: Tx, event: CustomerEvent): Promise<void> {
    await this.hot.append(tx, CUSTOMER_EVENTS_KEY, event, (events) => this.write(tx, events));
  }

  /**
   * `room.usage_corrected` for a room whose `room.ended` was sent and whose totals this transaction
   * changes: one per room and transaction, with the totals it had when locked (written once the
   * transaction's totals are, and left out if they came back to where they were).
   */
  async emitUsageCorrected(tx: Tx, room: CorrectedRoom): Promise<void> {
    await this.emit(tx, {
      organizationId: room.organization_id,
      type: 'room.usage_corrected',
      roomId: room.id,
      previousTotals: {
        total_connection_minutes: room.total_connection_minutes,
        total_charged_cents: room.total_charged_cents,
      },
    });
  }

  private async write(tx: Tx, all: CustomerEvent[]): Promise<void> {
    const corrected = new Set<string>();
    const events = all.filter((e) => e.type !== 'room.usage_corrected' || (!corrected.has(e.roomId) && corrected.add(e.roomId)));
    const rooms = await this.rooms.views(
      events.flatMap((event) => ('data' in event ? [] : [{ roomId: event.roomId, organizationId: event.organizationId }])),
      tx,
    );
    const kept = events.filter((event) => event.type !== 'room.usage_corrected' || totalsMoved(rooms.get(event.roomId), event));
    if (kept.length === 0) return;
    const endpoints = await this.endpoints.subscribed([...new Set(kept.map((e) => e.organizationId))], tx);
    const createdAt = new Date().toJSON();
    const rows = kept.map((event) => {
      const id = `evt_${randomBytes(16).toString('hex')}`;
      const data =
        'data' in event
          ? event.data
          : event.type === 'room.usage_corrected'
            ? { ...rooms.get(event.roomId), previous_totals: event.previousTotals }
            : rooms.get(event.roomId);
      return {
        id,
        organizationId: event.organizationId,
        type: event.type,
        roomId: event.roomId ?? null,
        body: JSON.stringify({ id, type: event.type, created_at: createdAt, data }),
      };
    });
    const deliveries = kept.flatMap((event, i) =>
      endpoints
        .filter((e) => e.organizationId === event.organizationId && (e.events === null || e.events.includes(event.type)))
        .map((endpoint) => ({ endpointId: endpoint.id, eventId: rows[i].id, lane: event.roomId ?? null })),
    );
    await this.deliveries.insert(rows, deliveries, maxAttempts(this.config.webhooks.retryScheduleMs), tx);
  }
}

function totalsMoved(room: RoomTotals | undefined, event: { previousTotals: RoomTotals }): boolean {
  return (
    !!room &&
    (room.total_connection_minutes !== event.previousTotals.total_connection_minutes ||
      room.total_charged_cents !== event.previousTotals.total_charged_cents)
  );
}
