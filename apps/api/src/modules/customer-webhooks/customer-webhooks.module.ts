import { Module } from '@nestjs/common';
import { CustomerWebhookDelivery } from './customer-webhook-delivery';
import { DeliveryOutcomes } from './delivery-outcomes';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';

@Module({
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, CustomerWebhookDelivery, DeliveryOutcomes],
  exports: [DeliveryOutcomes],
})
export class CustomerWebhooksModule {}
