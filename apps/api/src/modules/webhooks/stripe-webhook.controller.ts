import { Controller, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { NotRateLimited } from '../../common/rate-limiting/not-rate-limited.decorator';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../common/auth/public.decorator';
import { ApiError } from '../../common/errors/api-error';
import { asJsonObject } from '../../common/json/json-shape';
import { StripeGateway } from '../billing/stripe.gateway';
import { InboundEventsService, isStorablePayload, MAX_PAYLOAD_DEPTH } from './inbound-events.service';
import { RateLimitsService } from '../../common/rate-limiting/rate-limits.service';

/** Stripe's ids are at most 255 characters; a longer one could not be a key of the stored events. */
const MAX_EVENT_ID_LENGTH = 255;

/** Stripe webhooks: signature checked over the raw body, stored by event id, then applied from the queue. */
@ApiExcludeController()
@Public()
@NotRateLimited()
@Controller('v1/webhooks/stripe')
export class StripeWebhookController {
  constructor(
    private readonly stripe: StripeGateway,
    private readonly events: InboundEventsService,
    private readonly limits: RateLimitsService,
  ) {}

  @Post()
  @HttpCode(200)
  async receive(@Req() request: RawBodyRequest<Request>): Promise<{ received: true }> {
    // Not rate limited: a signed delivery always goes through. A failed signature counts against the
    // address in this route's own failed-authentication budget, never against its API credentials.
    const signature = request.headers['stripe-signature'];
    const verified = this.stripe.verifyWebhook(request.rawBody ?? Buffer.alloc(0), typeof signature === 'string' ? signature : undefined);
    if (!verified) {
      const refusal = new ApiError(400, 'The Stripe-Signature header does not verify.');
      throw await this.limits.failedAuthentication(request.ip ?? 'unknown', refusal, 'stripe-webhook');
    }
    const event = verified.payload;
    // Signed, but not necessarily an event: only an object with an id and a type can be stored and
    // deduplicated. Anything else is refused, and nothing is stored.
    const { id, type } = asJsonObject(event) ?? {};
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_EVENT_ID_LENGTH || typeof type !== 'string') {
      throw new ApiError(400, `The payload is not a Stripe event: it needs an "id" (1 to ${MAX_EVENT_ID_LENGTH} characters) and a "type".`);
    }
    if (!isStorablePayload(event)) {
      throw new ApiError(
        400,
        `The Stripe event cannot be stored: it is nested deeper than ${MAX_PAYLOAD_DEPTH} levels or contains U+0000 or an unpaired surrogate.`,
      );
    }
    await this.events.store({ provider: 'stripe', eventId: id, eventType: type, subject: null, payloadJson: JSON.stringify(event) });
    return { received: true };
  }
}
