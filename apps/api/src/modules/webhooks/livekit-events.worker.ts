import { QUEUES, type StoredEventJob } from '@app/contracts';
import { Injectable, type OnModuleInit } from '@nestjs/common';
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
  ) {}

  onModuleInit(): void {
    this.queues.process<StoredEventJob>(QUEUES.livekitEvents, async (job) => {
      let jobs: OutboxJob[] = [];
      await this.events.applyOnce('livekit', job.data.eventId, async (tx, payload) => {
        jobs = await this.processor.apply(tx, payload);
        await this.outbox.write(tx, jobs);
      });
      await this.outbox.flush(jobs);
    });
  }
}
