import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { toPage, type Page } from '../../common/pagination/page';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { DatabaseClient } from '../../database/database.client';
import { PeriodicJobsScheduler } from '../../queue/periodic-jobs.scheduler';
import { StreamTicketsRepository } from '../auth/stream-tickets.repository';
import { WebhookDeliveriesRepository } from '../customer-webhooks/webhook-deliveries.repository';
import type { EventsQueryDto, EventView } from './event.dto';
import { EventLogRepository } from './event-log.repository';

const RETENTION_EVERY_MS = 3600_000;
const RETENTION_BATCH = 5_000;
const RETENTION_BATCHES_PER_RUN = 200;

/**
 * The customer event log read as a page (GET /v1/events), and kept `EVENT_RETENTION_DAYS`: an hourly
 * job deletes older events with their deliveries, and spent stream tickets.
 */
@Injectable()
export class EventLogService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly log: EventLogRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly tickets: StreamTicketsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() periodic?: PeriodicJobsScheduler,
  ) {
    periodic?.register({ name: 'events.retention', everyMs: RETENTION_EVERY_MS, run: () => this.deleteExpired() });
  }

  async page(actor: Actor, query: EventsQueryDto): Promise<Page<EventView>> {
    const filter = {
      type: query.type ?? null,
      roomId: query.room_id ?? null,
      since: typeof query.since === 'string' ? new Date(query.since) : null,
    };
    const bodies = await this.log.page(actor.organizationId, filter, query.limit + 1, query.offset);
    return toPage(
      bodies.map((body) => JSON.parse(body) as EventView),
      query,
    );
  }

  /** Deletes events past the retention (bounded batches) and spent tickets; returns how many events. */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < RETENTION_BATCHES_PER_RUN; batch++) {
      const n = await this.database.transaction((tx) =>
        this.deliveries.deleteExpired(this.config.events.retentionDays, RETENTION_BATCH, tx),
      );
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
    await this.database.oneStatement((tx) => this.tickets.deleteSpent(tx));
    return deleted;
  }
}
