import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { EnumRule, StringRule, UuidRule, withUuidHyphens } from '../../common/validation/rules';

/** A date-time with its offset (`Z` or `±hh:mm`), as the other routes take them. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

function instantOf(value: unknown): number {
  return typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : NaN;
}

export class AuditEventsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: [...AUDIT_ACTIONS], description: 'only events of this action' })
  @EnumRule(AUDIT_ACTIONS, { optional: true })
  action?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'only events of this user (through a session or one of their keys)' })
  @UuidRule({ optional: true })
  actor_user_id?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 255, description: 'only events about this object (`target.id`)' })
  @StringRule({ minLength: 1, maxLength: 255, optional: true })
  @withUuidHyphens
  target_id?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'events at or after this instant; must carry a UTC offset' })
  @IsOptional()
  since?: unknown;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'events before this instant; must carry a UTC offset' })
  @IsOptional()
  until?: unknown;

  static moreIssues(instance: AuditEventsQueryDto) {
    const issues: { loc: string[]; msg: string; type: string; input: unknown; ctx?: Record<string, unknown> }[] = [];
    for (const field of ['since', 'until'] as const) {
      const value = instance[field];
      if (value !== undefined && Number.isNaN(instantOf(value))) {
        issues.push({ loc: [field], msg: 'Input should be a valid datetime with a time zone', type: 'datetime_parsing', input: value });
      }
    }
    const since = instantOf(instance.since);
    const until = instantOf(instance.until);
    if (until < since) {
      const error = 'until should not be before since';
      issues.push({ loc: ['until'], msg: `Value error, ${error}`, type: 'value_error', input: instance.until, ctx: { error } });
    }
    return issues;
  }
}

export class AuditActorView {
  @ApiProperty({ enum: [...AUDIT_ACTOR_TYPES], description: '`operator`: the operator CLI; `system`: a provider (Stripe)' })
  type!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the member who acted (a key acts for its creator)' })
  user_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'ada@example.com' }) email!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the API key used, if any' }) api_key_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'trk_AbCd', description: "the key's first characters, never its secret" })
  api_key_prefix!: string | null;
}

export class AuditTargetView {
  @ApiProperty({ enum: [...AUDIT_TARGET_TYPES] }) type!: string;
  @ApiProperty({ description: "the object's id (a Stripe checkout session's for checkouts and purchases)" }) id!: string;
}

export class AuditEventView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'date-time' }) occurred_at!: Date;
  @ApiProperty({ enum: [...AUDIT_ACTIONS] }) action!: string;
  @ApiProperty({ type: AuditActorView }) actor!: AuditActorView;
  @ApiProperty({ type: AuditTargetView }) target!: AuditTargetView;
  @ApiProperty({ type: String, nullable: true, description: 'the X-Request-Id of the request that made the change; null outside requests' })
  request_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "the client's address; null outside requests" }) ip!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'what changed (never a secret: no key, token or webhook secret)',
  })
  details!: unknown;
}
