import { DateTime } from 'luxon';
import type { FieldIssue, Result } from './errors';
import { ianaZone, isIanaZoneName } from './time-zone';

export const GRANULARITIES = ['hour', 'day', 'week'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const DEFAULT_GRANULARITY: Granularity = 'day';
export const DEFAULT_TIMEZONE = 'UTC';
/** Calendar days in the requested zone, compared as local wall-clock times. */
export const MAX_WINDOW_DAYS = 90;

/** Raw query values; anything may arrive. */
export interface UsageWindowInput {
  startsAfter?: unknown;
  endsBefore?: unknown;
  granularity?: unknown;
  timezone?: unknown;
}

export interface UsageWindow {
  /** Inclusive. */
  startsAfter: Date;
  /** Exclusive. */
  endsBefore: Date;
  granularity: Granularity;
  /** The IANA name as sent (or the default). */
  timezone: string;
}

// Date, time (seconds and fraction optional), then an optional offset: Z, ±hh, ±hhmm or ±hh:mm.
const ISO_DATETIME = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)([Zz]|[+\- ]\d{2}(?::?\d{2})?)?$/;
// An offset's hours and minutes: less than 24 hours (-23:59 to +23:59, as RFC 3339 and Pydantic), minutes 00 to 59.
const VALID_OFFSET = /^(?:[Zz]|[+\- ](?:[01]\d|2[0-3])(?::?[0-5]\d)?)$/;

type ParsedDateTime = { ok: true; value: DateTime } | { ok: false; type: 'datetime_parsing' | 'timezone_aware' };

/**
 * An ISO 8601 date-time that carries its UTC offset. A space where the offset's sign belongs is read
 * as `+`: an unencoded `+` in a query string arrives decoded as a space.
 */
export function parseOffsetDateTime(value: string): ParsedDateTime {
  const match = ISO_DATETIME.exec(value);
  if (!match) return { ok: false, type: 'datetime_parsing' };
  const [, local, offset] = match;
  if (offset === undefined) return { ok: false, type: 'timezone_aware' };
  if (!VALID_OFFSET.test(offset)) return { ok: false, type: 'datetime_parsing' };
  const parsed = DateTime.fromISO(`${local}${offset.replace(' ', '+')}`, { setZone: true });
  return parsed.isValid ? { ok: true, value: parsed } : { ok: false, type: 'datetime_parsing' };
}

/**
 * A valid date-time as sent, to echo back: the space an unencoded `+` of the offset became is a
 * `+` again; anything else is returned unchanged, byte for byte.
 */
export function echoOffsetDateTime(value: string): string {
  const match = ISO_DATETIME.exec(value);
  const offset = match?.[2];
  return match && offset?.startsWith(' ') ? `${match[1]}+${offset.slice(1)}` : value;
}

/** Validates every field of an overview window and lists every problem, each under its query parameter name. */
export function parseUsageWindow(input: UsageWindowInput): Result<UsageWindow, FieldIssue[]> {
  const issues: FieldIssue[] = [];
  const start = dateTimeField('starts_after', input.startsAfter, issues);
  const end = dateTimeField('ends_before', input.endsBefore, issues);
  const granularity = granularityField(input.granularity, issues);
  const timezone = timezoneField(input.timezone, issues);

  if (start && end) {
    if (end.toMillis() <= start.toMillis()) {
      issues.push({
        loc: ['ends_before'],
        type: 'greater_than',
        msg: 'ends_before must be after starts_after.',
        input: input.endsBefore,
        ctx: { gt: input.startsAfter },
      });
    } else if (timezone !== undefined) {
      const [startOutside, endOutside] = granularity ? outsideYears(start, end, granularity, timezone) : [false, false];
      if (startOutside) issues.push(outOfRange('starts_after', input.startsAfter, timezone));
      if (exceedsMaxWindow(start, end, timezone)) {
        issues.push({
          loc: ['ends_before'],
          type: 'window_too_long',
          msg: `The window may span at most ${MAX_WINDOW_DAYS} calendar days in ${timezone}.`,
          input: input.endsBefore,
          ctx: { max_days: MAX_WINDOW_DAYS },
        });
      } else if (endOutside) {
        issues.push(outOfRange('ends_before', input.endsBefore, timezone));
      }
    }
  }

  if (issues.length > 0 || !start || !end || !granularity || timezone === undefined) return { ok: false, error: issues };
  return { ok: true, value: { startsAfter: start.toJSDate(), endsBefore: end.toJSDate(), granularity, timezone } };
}

/** True when `end` is more than MAX_WINDOW_DAYS after `start`, both read as wall-clock times in `timezone`. */
export function exceedsMaxWindow(start: DateTime, end: DateTime, timezone: string): boolean {
  const zone = ianaZone(timezone);
  // Re-label local wall-clock times as UTC so that adding days and comparing ignore DST shifts.
  const wall = (instant: DateTime) => instant.setZone(zone).setZone('UTC', { keepLocalTime: true });
  return wall(end).toMillis() > wall(start).plus({ days: MAX_WINDOW_DAYS }).toMillis();
}

/**
 * Whether the first bucket starts before the year 0000, or the window's last instant lies after the
 * year 9999, in `timezone`: such a bucket has no RFC 3339 date-time (`2026-…` has four digits).
 */
function outsideYears(start: DateTime, end: DateTime, granularity: Granularity, timezone: string): [boolean, boolean] {
  // An offset or a week moves a boundary by days at most: only windows at the edges of the range need the zone.
  if (start.year > 1 && end.year < 9999) return [false, false];
  const zone = ianaZone(timezone);
  const first = start.setZone(zone).startOf(granularity);
  const last = end.minus({ milliseconds: 1 }).setZone(zone);
  return [first.year < 0, last.year > 9999];
}

function outOfRange(field: string, value: unknown, timezone: string): FieldIssue {
  const error = `the window's buckets must lie within the years 0000 to 9999 in ${timezone}`;
  return { loc: [field], type: 'value_error', msg: `Value error, ${error}.`, input: value, ctx: { error } };
}

function dateTimeField(field: string, value: unknown, issues: FieldIssue[]): DateTime | undefined {
  if (value === undefined || value === null || value === '') {
    issues.push({ loc: [field], type: 'missing', msg: 'Field required', input: value ?? null });
    return undefined;
  }
  if (typeof value !== 'string') {
    issues.push({ loc: [field], type: 'datetime_type', msg: 'Input should be a valid datetime.', input: value });
    return undefined;
  }
  const parsed = parseOffsetDateTime(value);
  if (parsed.ok) return parsed.value;
  issues.push(
    parsed.type === 'timezone_aware'
      ? { loc: [field], type: 'timezone_aware', msg: 'Input should have timezone info (Z or ±hh:mm).', input: value }
      : { loc: [field], type: 'datetime_parsing', msg: 'Input should be an ISO 8601 datetime with a UTC offset.', input: value },
  );
  return undefined;
}

// Only an absent parameter takes the default: an empty one was sent, and is invalid.
function granularityField(value: unknown, issues: FieldIssue[]): Granularity | undefined {
  if (value === undefined) return DEFAULT_GRANULARITY;
  if (typeof value === 'string' && (GRANULARITIES as readonly string[]).includes(value)) return value as Granularity;
  issues.push({
    loc: ['granularity'],
    type: 'enum',
    msg: "Input should be 'hour', 'day' or 'week'.",
    input: value,
    ctx: { expected: "'hour', 'day' or 'week'" },
  });
  return undefined;
}

function timezoneField(value: unknown, issues: FieldIssue[]): string | undefined {
  if (value === undefined) return DEFAULT_TIMEZONE;
  if (typeof value === 'string' && isIanaZoneName(value)) return value;
  issues.push({
    loc: ['timezone'],
    type: 'zoneinfo_str',
    msg: 'Input should be an IANA time zone name such as Europe/Berlin; fixed offsets are not accepted.',
    input: value,
  });
  return undefined;
}
