import { QUEUES, type StoredEventJob } from '@app/contracts';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HotRowWrites } from '../../database/hot-row-writes';
import { Outbox, type OutboxJob } from '../../queue/outbox';
import { QueueRegistry } from '../../queue/queue-registry';
import { InboundEvents } from './inbound-events';
import { LiveKitEventProcessor } from './livekit-event-processor';

/** The handler of the livekit-events queue. */
@Injectable()
export class LiveKitEventsWorker implements OnModuleInit {
  constructor(
    private readonly queues: QueueRegistry,
    private readonly events: InboundEvents,
    private readonly processor: LiveKitEventProcessor,
    private readonly outbox: Outbox,
    private readonly hot: HotRowWrites,
  ) {}

  onModuleInit(): void {
    this.queues.process<StoredEventJob>(QUEUES.livekitEvents, async (job) => {
      let jobs: OutboxJob[] = [];
      await this.events.applyOnce('livekit', job.data.eventId, async (tx, payload) => {
        jobs = await this.hot.deferWithin(tx, async () => {
          const decided = await this.processor.apply(tx, payload);
          await this.outbox.write(tx, decided);
          return decided;
        });
      });
      await this.outbox.flush(jobs);
    });
  }
}
