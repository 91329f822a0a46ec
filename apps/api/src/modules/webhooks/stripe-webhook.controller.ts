import { Controller, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../common/auth/public.decorator';
import { ApiError } from '../../common/errors/api-error';
import { StripeGateway } from '../billing/stripe.gateway';
import { InboundEvents } from './inbound-events';

/** Stripe webhooks: signature checked over the raw body, stored by event id, then applied from the queue. */
@ApiExcludeController()
@Public()
@Controller('v1/webhooks/stripe')
export class StripeWebhookController {
  constructor(
    private readonly stripe: StripeGateway,
    private readonly events: InboundEvents,
  ) {}

  @Post()
  @HttpCode(200)
  async receive(@Req() request: RawBodyRequest<Request>): Promise<{ received: true }> {
    const signature = request.headers['stripe-signature'];
    const event = this.stripe.verifyWebhook(request.rawBody ?? Buffer.alloc(0), typeof signature === 'string' ? signature : undefined);
    if (!event) throw new ApiError(400, 'The Stripe-Signature header does not verify.');
    await this.events.store({ provider: 'stripe', eventId: event.id, eventType: event.type, subject: null, payload: event });
    return { received: true };
  }
}
