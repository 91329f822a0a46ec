import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { InboundEventsService } from './inbound-events.service';
import { InboundEventsRepository } from './inbound-events.repository';
import { LiveKitWebhookController } from './livekit-webhook.controller';
import { StripeWebhookController } from './stripe-webhook.controller';

/**
 * Inbound webhooks: received, verified, stored and enqueued. LiveKit's events are applied by
 * metering (LiveKitEventsModule); Stripe's settle purchases (billing's StripeEventsModule).
 */
@Module({
  imports: [BillingModule],
  controllers: [LiveKitWebhookController, StripeWebhookController],
  providers: [InboundEventsService, InboundEventsRepository],
  exports: [InboundEventsService],
})
export class WebhooksModule {}
