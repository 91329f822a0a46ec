import { DEFAULT_GRANULARITY, DEFAULT_TIMEZONE, GRANULARITIES, parseUsageWindow } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class UsageOverviewQueryDto {
  @ApiProperty({
    format: 'date-time',
    description: 'window start, inclusive; must carry a UTC offset',
    example: '2026-03-01T00:00:00+01:00',
  })
  starts_after?: unknown;

  @ApiProperty({
    format: 'date-time',
    description: 'window end, exclusive; must carry a UTC offset; at most 90 calendar days after the start',
  })
  ends_before?: unknown;

  @ApiPropertyOptional({ enum: GRANULARITIES, default: DEFAULT_GRANULARITY })
  granularity?: unknown;

  @ApiPropertyOptional({
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
  @ApiProperty({ format: 'date-time', description: 'bucket start with the zone offset' }) bucket!: string;
  @ApiProperty({ type: 'integer' }) minutes!: number;
  @ApiProperty({ type: 'integer' }) avg_room_minutes!: number;
  @ApiProperty({ type: 'integer' }) sessions!: number;
}

export class UsageOverviewView {
  @ApiProperty({ format: 'date-time' }) starts_after!: string;
  @ApiProperty({ format: 'date-time' }) ends_before!: string;
  @ApiProperty({ enum: GRANULARITIES }) granularity!: string;
  @ApiProperty() timezone!: string;
  @ApiProperty({ type: UsageSummaryView }) summary!: UsageSummaryView;
  @ApiProperty({ type: [UsageBucketView] }) buckets!: UsageBucketView[];
}
