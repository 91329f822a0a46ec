import { QUEUES, ROOM_SETTLE_JOB, type RoomSettleJob, type StoredEventsJob } from '@app/contracts';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
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
 */
const LANES = 2;

@Injectable()
export class LiveKitEventsWorker implements OnModuleInit {
  /** Events of one room always go to the same lane, so lanes never wait on each other's room locks. */
  private readonly lanes = Array.from(
    { length: LANES },
    () => new Coalescer<string>((eventIds) => this.applyAll(eventIds), { maxBatch: 250, parallel: 1 }),
  );

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
      else await Promise.all((job.data as StoredEventsJob).events.map((event) => this.laneOf(event.subject).submit(event.id)));
    });
  }

  private laneOf(subject: string | null): Coalescer<string> {
    return this.lanes[subject ? createHash('sha1').update(subject).digest().readUInt32BE(0) % LANES : 0];
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
