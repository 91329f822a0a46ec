import { QUEUES, ROOM_SETTLE_JOB, type RoomSettleJob, type StoredEventsJob } from '@app/contracts';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { dependencyFailure } from '../../common/errors/service-unavailable';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import { OutboxPublisher, type OutboxJob } from '../../queue/outbox.publisher';
import { QueueRegistry } from '../../queue/queue.registry';
import { InboundEventsService } from '../webhooks/inbound-events.service';
import { LiveKitEventsService } from './livekit-events.service';
import { RoomSettlementService } from './room-settlement.service';

/**
 * The handler of the livekit-events queue (and of its `room.settle` jobs, see RoomSettlementService).
 * A job's events (the webhooks stored together, InboundEventsService) are applied in one transaction:
 * one lock per room, one write per balance and usage slot (HotRowWritesService). The worker opens the
 * transaction, so it alone writes the job's outbox jobs (once each) and enqueues them after commit;
 * the processor and the rooms' lifecycle only decide them. Jobs that run at the same time apply side
 * by side, each room's lock keeping them apart.
 */
@Injectable()
export class LiveKitEventsWorker implements OnModuleInit {
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
      else await this.applyJob((job.data as StoredEventsJob).events.map((event) => event.id));
    });
  }

  /**
   * A job whose transaction fails is tried again one event at a time, so a bad event fails alone and
   * never holds back the others; the job fails if any did. When the database or Redis is down, the
   * job fails at once (one by one, each event would wait out the same timeout).
   */
  private async applyJob(eventIds: string[]): Promise<void> {
    try {
      await this.applyAll(eventIds);
    } catch (error) {
      if (eventIds.length === 1 || dependencyFailure(error)) throw error;
      let failure: unknown = null;
      for (const eventId of eventIds) await this.applyAll([eventId]).catch((eventError: unknown) => (failure ??= eventError));
      if (failure !== null) throw failure;
    }
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
