import { QUEUES, type StoredEventJob } from '@app/contracts';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type Stripe from 'stripe';
import { QueueRegistry } from '../../queue/queue-registry';
import { PurchaseSettlement } from '../billing/purchase-settlement';
import { InboundEvents } from './inbound-events';

/** The handler of the stripe-events queue. */
@Injectable()
export class StripeEventsWorker implements OnModuleInit {
  constructor(
    private readonly queues: QueueRegistry,
    private readonly events: InboundEvents,
    private readonly settlement: PurchaseSettlement,
  ) {}

  onModuleInit(): void {
    this.queues.process<StoredEventJob>(QUEUES.stripeEvents, async (job) => {
      await this.events.applyOnce('stripe', job.data.eventId, (tx, payload) => this.settlement.apply(tx, payload as Stripe.Event));
    });
  }
}
