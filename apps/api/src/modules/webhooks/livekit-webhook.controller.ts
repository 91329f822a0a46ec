import { Controller, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { NotRateLimited } from '../../common/rate-limiting/not-rate-limited.decorator';
import { ApiExcludeController } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { Public } from '../../common/auth/public.decorator';
import { ApiError } from '../../common/errors/api-error';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import { InboundEventsService } from './inbound-events.service';
import { RateLimitsService } from '../../common/rate-limiting/rate-limits.service';

/** LiveKit webhooks: verified, stored by event id, answered, then applied from the queue. */
@ApiExcludeController()
@Public()
@NotRateLimited()
@Controller('v1/webhooks/livekit')
export class LiveKitWebhookController {
  constructor(
    private readonly livekit: LiveKitGateway,
    private readonly events: InboundEventsService,
    private readonly limits: RateLimitsService,
  ) {}

  @Post()
  @HttpCode(200)
  async receive(@Req() request: RawBodyRequest<Request>): Promise<{ received: true }> {
    // Not rate limited: a signed delivery always goes through. A failed signature counts against the
    // address in this route's own failed-authentication budget, never against its API credentials.
    const raw = request.rawBody?.toString('utf8') ?? '';
    const event = await this.livekit.verifyWebhook(raw, request.headers.authorization);
    if (!event) {
      const refusal = ApiError.unauthorized('The webhook signature does not verify.');
      throw await this.limits.failedAuthentication(request.ip ?? 'unknown', refusal, 'livekit-webhook');
    }
    const eventId = event.id || createHash('sha256').update(raw).digest('hex');
    await this.events.store({
      provider: 'livekit',
      eventId,
      eventType: event.event,
      subject: event.room?.name || null,
      payload: event.toJson(),
    });
    return { received: true };
  }
}
