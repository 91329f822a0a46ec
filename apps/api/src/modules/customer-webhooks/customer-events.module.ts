import { Global, Module } from '@nestjs/common';
import { RoomsStoreModule } from '../rooms/rooms-store.module';
import { CustomerEventsPublisher } from './customer-events.publisher';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** The outbox side of customer webhooks, for every module whose changes customers hear about. */
@Global()
@Module({
  imports: [RoomsStoreModule],
  providers: [CustomerEventsPublisher, WebhookEndpointsRepository, WebhookDeliveriesRepository],
  exports: [CustomerEventsPublisher, WebhookEndpointsRepository, WebhookDeliveriesRepository],
})
export class CustomerEventsModule {}
