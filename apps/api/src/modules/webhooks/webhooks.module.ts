import { Module } from '@nestjs/common';
import { MeteringModule } from '../metering/metering.module';
import { RoomsModule } from '../rooms/rooms.module';
import { InboundEvents } from './inbound-events';
import { LiveKitEventProcessor } from './livekit-event-processor';
import { LiveKitEventsWorker } from './livekit-events.worker';
import { LiveKitWebhookController } from './livekit-webhook.controller';

@Module({
  imports: [RoomsModule, MeteringModule],
  controllers: [LiveKitWebhookController],
  providers: [InboundEvents, LiveKitEventProcessor, LiveKitEventsWorker],
  exports: [InboundEvents],
})
export class WebhooksModule {}
