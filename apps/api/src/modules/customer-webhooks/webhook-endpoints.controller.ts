import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';
import {
  CreatedWebhookEndpointView,
  CreateWebhookEndpointDto,
  DeliveriesQueryDto,
  DeliveryIdParams,
  DeliveryView,
  WebhookEndpointIdParams,
  WebhookEndpointView,
} from './webhook-endpoint.dto';
import { WebhookEndpointsService } from './webhook-endpoints.service';

@ApiTags('webhook-endpoints')
@ApiBearerAuth()
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @Requires('webhooks:write')
  @Idempotent()
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description:
      'The service POSTs signed events (Standard Webhooks: headers `webhook-id`, `webhook-timestamp`, `webhook-signature`) to this ' +
      'https URL, at least once, retrying with backoff for about a day. The signing `secret` is shown only in this answer. ' +
      'URLs on plain http or whose host resolves to a loopback, private, link-local or metadata address are refused (422).',
  })
  @ApiCreatedResponse({ type: CreatedWebhookEndpointView, description: 'The endpoint, with its signing secret shown this once' })
  @ApiErrors(422, 401)
  create(@CurrentActor() actor: Actor, @Body() body: CreateWebhookEndpointDto) {
    return this.endpoints.create(actor, body);
  }

  @Get()
  @Requires('webhooks:read')
  @ApiOperation({ summary: 'List webhook endpoints', description: "The organization's endpoints, newest first, without their secrets." })
  @ApiPageResponse(WebhookEndpointView, 'Webhook endpoints of the organization, newest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: PageQueryDto) {
    return this.endpoints.list(actor, query);
  }

  @Delete(':id')
  @Requires('webhooks:write')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description: 'Nothing more is sent to it; its pending deliveries are marked failed.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(422, 401, 404)
  async delete(@CurrentActor() actor: Actor, @Param() params: WebhookEndpointIdParams) {
    await this.endpoints.delete(actor, params.id);
  }

  @Get(':id/deliveries')
  @Requires('webhooks:read')
  @ApiOperation({
    summary: 'Delivery log of a webhook endpoint',
    description: 'One line per event sent to the endpoint, newest first: its status, attempts, last answer and next attempt.',
  })
  @ApiPageResponse(DeliveryView, 'Deliveries to the endpoint, newest first')
  @ApiErrors(422, 401, 404)
  deliveries(@CurrentActor() actor: Actor, @Param() params: WebhookEndpointIdParams, @Query() query: DeliveriesQueryDto) {
    return this.endpoints.deliveries(actor, params.id, query);
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @Requires('webhooks:write')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a delivery again',
    description:
      "Sends the event to the endpoint again now, with the same `webhook-id`, whatever the delivery's status. A delivered or failed " +
      'delivery gets one more attempt; a pending one is tried now instead of at its next scheduled time.',
  })
  @ApiResponse({ status: 202, type: DeliveryView, description: 'Accepted: the delivery is pending until the attempt is recorded' })
  @ApiErrors(422, 401, 404)
  retry(@CurrentActor() actor: Actor, @Param() params: DeliveryIdParams) {
    return this.endpoints.retry(actor, params.id, params.delivery_id);
  }
}
