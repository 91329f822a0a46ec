import { Controller, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { NotRateLimited } from '../../common/rate-limiting/not-rate-limited.decorator';
import { ApiExcludeController } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { Public } from '../../common/auth/public.decorator';
import { ApiError } from '../../common/errors/api-error';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import { asJsonObject } from '../../common/json/json-shape';
import { InboundEventsService, isStorablePayload, MAX_PAYLOAD_DEPTH } from './inbound-events.service';
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
    if (!(await this.livekit.verifyWebhook(raw, request.headers.authorization))) {
      const refusal = ApiError.unauthorized('The webhook signature does not verify.');
      throw await this.limits.failedAuthentication(request.ip ?? 'unknown', refusal, 'livekit-webhook');
    }
    // Signed, but not necessarily an event: only an object with an "event" is stored. It is stored as
    // it came (proto JSON; metering reads the fields it needs, livekit-event.ts).
    const event = asJsonObject(parsedOrNull(raw));
    if (!event || typeof event.event !== 'string' || !isStorablePayload(event)) {
      throw new ApiError(
        400,
        `The payload is not a LiveKit webhook event: it needs an "event", at most ${MAX_PAYLOAD_DEPTH} levels deep, without U+0000 or an unpaired surrogate.`,
      );
    }
    const room = asJsonObject(event.room);
    await this.events.store({
      provider: 'livekit',
      eventId: typeof event.id === 'string' && event.id ? event.id : createHash('sha256').update(raw).digest('hex'),
      eventType: event.event,
      subject: typeof room?.name === 'string' && room.name ? room.name : null,
      payloadJson: raw,
    });
    return { received: true };
  }
}

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
