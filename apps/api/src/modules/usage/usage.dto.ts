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
    const parsed = parsedWindowOf(instance);
    return parsed.ok ? [] : parsed.error.map((issue) => ({ ...issue, loc: [...issue.loc], ctx: issue.ctx ? { ...issue.ctx } : undefined }));
  }
}

export function toWindowInput(query: UsageOverviewQueryDto) {
  return { startsAfter: query.starts_after, endsBefore: query.ends_before, granularity: query.granularity, timezone: query.timezone };
}

const parsedWindows = new Map<string, ReturnType<typeof parseUsageWindow>>();
const MAX_PARSED_WINDOWS = 1_000;

/**
 * The window of a query, parsed once per distinct query: parsing costs tens of µs (luxon's zone and
 * offset work), the validation and the service both need it, and dashboards ask for the same windows
 * again and again. The result depends on the query alone; callers never change it.
 */
export function parsedWindowOf(query: UsageOverviewQueryDto): ReturnType<typeof parseUsageWindow> {
  const input = toWindowInput(query);
  const key = JSON.stringify([input.startsAfter, input.endsBefore, input.granularity, input.timezone]);
  let parsed = parsedWindows.get(key);
  if (parsed === undefined) {
    parsed = parseUsageWindow(input);
    if (parsedWindows.size >= MAX_PARSED_WINDOWS) parsedWindows.clear();
    parsedWindows.set(key, parsed);
  }
  return parsed;
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
