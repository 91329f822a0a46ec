import { Global, Module } from '@nestjs/common';
import { CustomerEvents } from './customer-events';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** The outbox side of customer webhooks, for every module whose changes customers hear about. */
@Global()
@Module({
  providers: [CustomerEvents, WebhookEndpointsRepository, WebhookDeliveriesRepository],
  exports: [CustomerEvents, WebhookEndpointsRepository, WebhookDeliveriesRepository],
})
export class CustomerEventsModule {}
