import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BillingModule } from './billing.module';
import { StripeEventsWorker } from './stripe-events.worker';

/**
 * Billing's side of Stripe's webhooks: the worker applying the events WebhooksModule received and
 * stored. Not part of BillingModule itself, which WebhooksModule imports (for StripeGateway, and
 * through rooms and metering): BillingModule importing WebhooksModule for InboundEventsService would be a
 * module cycle.
 */
@Module({ imports: [BillingModule, WebhooksModule], providers: [StripeEventsWorker] })
export class StripeEventsModule {}
