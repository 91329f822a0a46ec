import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { EnumRule, StringRule, UuidRule } from '../../common/validation/rules';
import { CUSTOMER_EVENT_TYPES } from '../customer-webhooks/event-types';

/** A date-time with its offset (`Z` or `±hh:mm`), as the other routes take them. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;
/** A stream cursor: the `id:` of an event the stream sent. */
export const CURSOR = /^\d{1,15}$/;

type Issue = { loc: (string | number)[]; msg: string; type: string; input: unknown; ctx?: Record<string, unknown> };

export class EventsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: [...CUSTOMER_EVENT_TYPES], description: 'only events of this type' })
  @EnumRule(CUSTOMER_EVENT_TYPES, { optional: true })
  type?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'only events about this room' })
  @UuidRule({ optional: true })
  room_id?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'events created at or after this instant; must carry a UTC offset',
  })
  @IsOptional()
  since?: unknown;

  static moreIssues(instance: EventsQueryDto): Issue[] {
    const since = instance.since;
    if (since === undefined || (typeof since === 'string' && DATE_TIME.test(since) && !Number.isNaN(Date.parse(since)))) return [];
    return [{ loc: ['since'], msg: 'Input should be a valid datetime with a time zone', type: 'datetime_parsing', input: since }];
  }
}

export class EventStreamQueryDto {
  @ApiPropertyOptional({
    description: `only these event types, comma-separated (${CUSTOMER_EVENT_TYPES.join(', ')})`,
    example: 'room.started,room.ended',
  })
  @StringRule({ minLength: 1, maxLength: 1000, optional: true })
  types?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'only events about this room' })
  @UuidRule({ optional: true })
  room_id?: string;

  @ApiPropertyOptional({ description: 'replay the events after this cursor (as the `Last-Event-ID` header does; the header wins)' })
  @StringRule({ minLength: 1, maxLength: 15, optional: true })
  last_event_id?: string;

  @ApiPropertyOptional({ description: 'a stream ticket (POST /v1/events/stream-tickets), in place of the Authorization header' })
  @StringRule({ minLength: 1, maxLength: 200, optional: true })
  ticket?: string;

  static moreIssues(instance: EventStreamQueryDto): Issue[] {
    const issues: Issue[] = [];
    if (typeof instance.types === 'string') {
      const expected = CUSTOMER_EVENT_TYPES.join(', ');
      instance.types.split(',').forEach((type, i) => {
        if (!(CUSTOMER_EVENT_TYPES as readonly string[]).includes(type.trim())) {
          issues.push({ loc: ['types', i], msg: `Input should be one of ${expected}`, type: 'enum', input: type, ctx: { expected } });
        }
      });
    }
    if (typeof instance.last_event_id === 'string' && !CURSOR.test(instance.last_event_id)) {
      issues.push({
        loc: ['last_event_id'],
        msg: 'Input should be an event cursor (digits)',
        type: 'string_pattern_mismatch',
        input: instance.last_event_id,
      });
    }
    return issues;
  }
}

export class EventView {
  @ApiProperty({ example: 'evt_0f3c2b1a9d8e7f6a5b4c3d2e1f0a9b8c' }) id!: string;
  @ApiProperty({ enum: [...CUSTOMER_EVENT_TYPES] }) type!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'as the webhook of this type carries it' })
  data!: Record<string, unknown>;
}

export class StreamTicketView {
  @ApiProperty({ description: 'opens one stream: GET /v1/events/stream?ticket=…', example: 'est_3q2-7wQ…' }) ticket!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'unused past this instant (60 s after it was issued)' })
  expires_at!: Date;
}
