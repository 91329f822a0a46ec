import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { MeteringModule } from '../metering/metering.module';
import { RoomsModule } from '../rooms/rooms.module';
import { InboundEvents } from './inbound-events';
import { LiveKitEventProcessor } from './livekit-event-processor';
import { LiveKitEventsWorker } from './livekit-events.worker';
import { LiveKitWebhookController } from './livekit-webhook.controller';
import { StripeWebhookController } from './stripe-webhook.controller';

@Module({
  imports: [RoomsModule, MeteringModule, BillingModule],
  controllers: [LiveKitWebhookController, StripeWebhookController],
  providers: [InboundEvents, LiveKitEventProcessor, LiveKitEventsWorker],
  exports: [InboundEvents],
})
export class WebhooksModule {}
