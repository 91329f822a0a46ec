import { DEFAULT_GRANULARITY, DEFAULT_TIMEZONE, GRANULARITIES, parseUsageWindow } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class UsageOverviewQueryDto {
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'window start, inclusive; must carry a UTC offset',
    example: '2026-03-01T00:00:00+01:00',
  })
  starts_after?: unknown;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'window end, exclusive; must carry a UTC offset; at most 90 calendar days after the start',
    example: '2026-03-31T00:00:00+02:00',
  })
  ends_before?: unknown;

  @ApiPropertyOptional({ enum: GRANULARITIES, enumName: 'Granularity', default: DEFAULT_GRANULARITY })
  granularity?: unknown;

  @ApiPropertyOptional({
    type: String,
    default: DEFAULT_TIMEZONE,
    description: 'IANA zone name; fixed offsets are not accepted',
    example: 'Europe/Berlin',
  })
  timezone?: unknown;

  static moreIssues(instance: UsageOverviewQueryDto) {
    const parsed = parseUsageWindow(toWindowInput(instance));
    return parsed.ok ? [] : parsed.error.map((issue) => ({ ...issue, loc: [...issue.loc], ctx: issue.ctx ? { ...issue.ctx } : undefined }));
  }
}

export function toWindowInput(query: UsageOverviewQueryDto) {
  return { startsAfter: query.starts_after, endsBefore: query.ends_before, granularity: query.granularity, timezone: query.timezone };
}

export class UsageSummaryView {
  @ApiProperty({ type: 'integer' }) total_minutes!: number;
  @ApiProperty({ type: 'integer' }) total_rooms!: number;
  @ApiProperty({ type: 'integer' }) total_participants!: number;
}

export class UsageBucketView {
  @ApiProperty({
    description:
      "bucket start in the window's zone, `yyyy-MM-ddTHH:mm:ss.SSS±hh:mm` (never `Z`); an offset with seconds (local mean time before 1972) adds `:ss`",
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}[+-]\\d{2}:\\d{2}(:\\d{2})?$',
    example: '2026-03-01T00:00:00.000+01:00',
  })
  bucket!: string;
  @ApiProperty({ type: 'integer' }) minutes!: number;
  @ApiProperty({ type: 'integer' }) avg_room_minutes!: number;
  @ApiProperty({ type: 'integer' }) sessions!: number;
}

export class UsageOverviewView {
  // Echoed as sent: any ISO 8601 date-time the query accepted (`+0530` offsets too), not only RFC 3339.
  @ApiProperty({ description: 'the window start as sent (an ISO 8601 date-time with an offset)', example: '2026-03-01T00:00:00+01:00' })
  starts_after!: string;
  @ApiProperty({ description: 'the window end as sent (an ISO 8601 date-time with an offset)', example: '2026-03-31T00:00:00+02:00' })
  ends_before!: string;
  @ApiProperty({ enum: GRANULARITIES, enumName: 'Granularity' }) granularity!: string;
  @ApiProperty() timezone!: string;
  @ApiProperty({ type: UsageSummaryView }) summary!: UsageSummaryView;
  @ApiProperty({ type: [UsageBucketView] }) buckets!: UsageBucketView[];
}
