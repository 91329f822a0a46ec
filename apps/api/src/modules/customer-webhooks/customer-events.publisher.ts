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
 * written in the transaction of the change, last (see HotRowWritesService), and only for organizations
 * that have endpoints. Committing notifies the dispatcher; a rollback sends nothing.
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

  private async write(tx: Tx, events: CustomerEvent[]): Promise<void> {
    const endpoints = await this.endpoints.subscribed([...new Set(events.map((e) => e.organizationId))], tx);
    const targets = events
      .map((event) => ({
        event,
        endpoints: endpoints.filter(
          (e) => e.organizationId === event.organizationId && (e.events === null || e.events.includes(event.type)),
        ),
      }))
      .filter((t) => t.endpoints.length > 0);
    if (targets.length === 0) return;
    const rooms = await this.rooms.views(
      targets.flatMap(({ event }) => ('data' in event ? [] : [{ roomId: event.roomId, organizationId: event.organizationId }])),
      tx,
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
    const deliveries = targets.flatMap(({ event, endpoints: subscribed }, i) =>
      subscribed.map((endpoint) => ({ endpointId: endpoint.id, eventId: rows[i].id, lane: event.roomId ?? null })),
    );
    await this.deliveries.insert(rows, deliveries, maxAttempts(this.config.webhooks.retryScheduleMs), tx);
  }
}
