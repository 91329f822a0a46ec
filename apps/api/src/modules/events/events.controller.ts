import { Controller, Get, Headers, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { Requires } from '../../common/auth/requires.decorator';
import { TakesStreamTicket } from '../../common/auth/stream-ticket.decorator';
import { RequestValidationError } from '../../common/errors/validation-error';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { StreamTicketAuthenticator } from '../auth/stream-ticket.authenticator';
import { CURSOR, EventStreamQueryDto, EventsQueryDto, EventView, StreamTicketView } from './event.dto';
import { EventLogService } from './event-log.service';
import { EventStreamsService, type StreamRequest } from './event-streams.service';

@ApiTags('events')
@ApiBearerAuth()
@Controller('v1/events')
export class EventsController {
  constructor(
    private readonly log: EventLogService,
    private readonly streams: EventStreamsService,
    private readonly tickets: StreamTicketAuthenticator,
  ) {}

  @Get()
  @Requires('events:read')
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'List events',
    description:
      "One page of the organization's events of the last `EVENT_RETENTION_DAYS` (30) days, newest first, exactly as webhooks send them. `since` is inclusive.",
  })
  @ApiPageResponse(EventView, 'Events, newest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: EventsQueryDto) {
    return this.log.page(actor, query);
  }

  @Get('stream')
  @Requires('events:read')
  @TakesStreamTicket()
  @ApiOperation({
    operationId: 'streamEvents',
    summary: 'Stream events (Server-Sent Events)',
    description:
      "The organization's events in commit order as `text/event-stream`: each as `id: <cursor>`, `event: <type>`, `data: <the event JSON>`. " +
      '`Last-Event-ID` (or `last_event_id`) replays every kept event after that cursor, then goes live with no gap and no double; a cursor past ' +
      'retention starts with `event: reset`. A comment line every 15 s. Browsers pass a stream ticket as `ticket` instead of the Authorization header.',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'the `id` of the last event received' })
  @ApiResponse({ status: 200, description: 'The stream', content: { 'text/event-stream': { schema: { type: 'string' } } } })
  @ApiErrors(422, 401, 429)
  async stream(
    @CurrentActor() actor: Actor,
    @Query() query: EventStreamQueryDto,
    @Headers('last-event-id') header: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const lastEventId = header ?? query.last_event_id;
    if (lastEventId !== undefined && !CURSOR.test(lastEventId)) {
      throw new RequestValidationError([
        {
          loc: ['header', 'Last-Event-ID'],
          msg: 'Input should be an event cursor (digits)',
          type: 'string_pattern_mismatch',
          input: lastEventId,
          ctx: {},
        },
      ]);
    }
    const wanted: StreamRequest = {
      types: query.types === undefined ? null : new Set(query.types.split(',').map((type) => type.trim())),
      roomId: query.room_id ?? null,
      lastEventId: lastEventId === undefined ? null : Number(lastEventId),
    };
    await this.streams.stream(actor, wanted, request, response);
  }

  @Post('stream-tickets')
  @HttpCode(201)
  @Requires('events:read')
  @ApiOperation({
    operationId: 'createStreamTicket',
    summary: 'Create a stream ticket',
    description:
      "A ticket that opens one event stream (`GET /v1/events/stream?ticket=…`) as the caller, with the caller's permissions when it is used: single use, valid 60 s. For `EventSource`, which cannot send headers.",
  })
  @ApiCreatedResponse({ type: StreamTicketView })
  @ApiErrors(422, 401)
  ticket(@CurrentActor() actor: Actor) {
    return this.tickets.issue(actor);
  }
}
