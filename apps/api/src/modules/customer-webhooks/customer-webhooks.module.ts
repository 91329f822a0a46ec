import { Module } from '@nestjs/common';
import { CustomerWebhookDelivery } from './customer-webhook-delivery';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';

@Module({
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, CustomerWebhookDelivery],
})
export class CustomerWebhooksModule {}
