import { QUEUES, ROOM_SETTLE_JOB, type RoomSettleJob, type StoredEventsJob } from '@app/contracts';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Coalescer } from '../../common/batching/coalescer';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import { OutboxPublisher, type OutboxJob } from '../../queue/outbox.publisher';
import { QueueRegistry } from '../../queue/queue.registry';
import { InboundEventsService } from '../webhooks/inbound-events.service';
import { LiveKitEventsService } from './livekit-events.service';
import { RoomSettlementService } from './room-settlement.service';

/**
 * The handler of the livekit-events queue (and of its `room.settle` jobs, see RoomSettlementService). The events of jobs that run at the same time are applied
 * together: one transaction per batch, one lock per room, one write per balance and usage slot.
 * The worker opens the batch's transaction, so it alone writes the batch's outbox jobs (once each)
 * and enqueues them after commit; the processor and the rooms' lifecycle only decide them.
 *
 * One batch runs at a time in a process (more processes apply beside it, each room's lock keeping
 * their batches apart): every batch of an organization ends on its hot rows (hot-row-keys.ts), so two
 * batches at once queued there, and one at a time makes batches twice as large, with a quarter less
 * PostgreSQL CPU per event and fewer statements per event (docs/performance-history.md, 2026-11-27 evening).
 */
@Injectable()
export class LiveKitEventsWorker implements OnModuleInit {
  private readonly batches = new Coalescer<string>((eventIds) => this.applyAll(eventIds), { maxBatch: 250, parallel: 1 });

  constructor(
    private readonly queues: QueueRegistry,
    private readonly events: InboundEventsService,
    private readonly processor: LiveKitEventsService,
    private readonly outbox: OutboxPublisher,
    private readonly hot: HotRowWritesService,
    private readonly settlement: RoomSettlementService,
  ) {}

  onModuleInit(): void {
    this.queues.process<StoredEventsJob | RoomSettleJob>(QUEUES.livekitEvents, async (job) => {
      if (job.name === ROOM_SETTLE_JOB) await this.settlement.settle(job.data as RoomSettleJob);
      else await Promise.all((job.data as StoredEventsJob).events.map((event) => this.batches.submit(event.id)));
    });
  }

  private async applyAll(eventIds: string[]): Promise<void> {
    let jobs: OutboxJob[] = [];
    await this.events.applyEach('livekit', eventIds, async (tx, payloads) => {
      jobs = await this.hot.deferWithin(tx, async () => {
        const decided = await this.processor.applyBatch(tx, payloads);
        await this.outbox.write(tx, decided);
        return decided;
      });
    });
    await this.outbox.flush(jobs);
  }
}
