import { QUEUES, type StoredEventsJob } from '@app/contracts';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { QueueRegistry } from '../../queue/queue.registry';
import { InboundEventsService } from '../webhooks/inbound-events.service';
import { PurchaseSettlementService } from './purchase-settlement.service';

/**
 * The handler of the stripe-events queue: applies the Stripe events webhooks/ stored, each once
 * (InboundEventsService.applyOnce), through PurchaseSettlementService.
 */
@Injectable()
export class StripeEventsWorker implements OnModuleInit {
  constructor(
    private readonly queues: QueueRegistry,
    private readonly events: InboundEventsService,
    private readonly settlement: PurchaseSettlementService,
  ) {}

  onModuleInit(): void {
    this.queues.process<StoredEventsJob>(QUEUES.stripeEvents, async (job) => {
      // One transaction per event, each tried even when another fails (the job then fails and its
      // retry skips those already applied): one bad event never holds back another's credit.
      const failures: unknown[] = [];
      for (const event of job.data.events) {
        await this.events
          .applyOnce('stripe', event.id, (tx, payload) => this.settlement.apply(tx, payload))
          .catch((error: unknown) => failures.push(error));
      }
      if (failures.length > 0) throw failures[0];
    });
  }
}
