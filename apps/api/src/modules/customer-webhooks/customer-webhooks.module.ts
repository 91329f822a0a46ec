import { Module } from '@nestjs/common';
import { CustomerWebhookDeliveryWorker } from './customer-webhook-delivery.worker';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';

@Module({
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, CustomerWebhookDeliveryWorker],
})
export class CustomerWebhooksModule {}
