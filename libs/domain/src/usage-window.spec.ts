import { DateTime } from 'luxon';
import { echoOffsetDateTime, parseOffsetDateTime, parseUsageWindow, type UsageWindowInput } from './usage-window';

describe('parseOffsetDateTime', () => {
  it.each([
    ['2026-03-28T00:00:00Z', '2026-03-28T00:00:00.000Z'],
    ['2026-03-28T00:00:00.123z', '2026-03-28T00:00:00.123Z'],
    ['2026-03-28T00:00+01:00', '2026-03-27T23:00:00.000Z'],
    ['2026-03-28T00:00:00+0530', '2026-03-27T18:30:00.000Z'],
    ['2026-03-28T00:00:00-03', '2026-03-28T03:00:00.000Z'],
    ['2026-03-28T00:00:00 01:00', '2026-03-27T23:00:00.000Z'],
    ['2026-03-28T00:00:00+23:59', '2026-03-27T00:01:00.000Z'],
    ['2026-03-28T00:00:00-2359', '2026-03-28T23:59:00.000Z'],
    ['2026-03-28T00:00:00-00:00', '2026-03-28T00:00:00.000Z'],
  ])('%s → %s', (input, utc) => {
    const parsed = parseOffsetDateTime(input);
    expect(parsed.ok && parsed.value.toUTC().toISO()).toBe(utc);
  });

  it.each([
    ['2026-03-28T00:00:00', 'timezone_aware'],
    ['2026-03-28T00:00', 'timezone_aware'],
    ['2026-03-28', 'datetime_parsing'],
    ['2026-13-28T00:00:00Z', 'datetime_parsing'],
    ['2026-02-30T00:00:00Z', 'datetime_parsing'],
    ['2026-03-28T25:00:00Z', 'datetime_parsing'],
    ['yesterday', 'datetime_parsing'],
    ['2026-03-28T00:00:00Europe/Berlin', 'datetime_parsing'],
    ['1774652400000', 'datetime_parsing'],
    // An offset is less than 24 hours, its minutes 00 to 59 (RFC 3339; Pydantic).
    ['2026-01-01T00:00:00+99:99', 'datetime_parsing'],
    ['2026-01-01T00:00:00+24:00', 'datetime_parsing'],
    ['2026-01-01T00:00:00-24:00', 'datetime_parsing'],
    ['2026-01-01T00:00:00+2400', 'datetime_parsing'],
    ['2026-01-01T00:00:00+24', 'datetime_parsing'],
    ['2026-01-01T00:00:00 24:00', 'datetime_parsing'],
    ['2026-01-01T00:00:00+05:60', 'datetime_parsing'],
    ['2026-01-01T00:00:00-0099', 'datetime_parsing'],
  ])('%s → %s', (input, type) => {
    expect(parseOffsetDateTime(input)).toEqual({ ok: false, type });
  });
});

describe('echoOffsetDateTime', () => {
  it.each([
    ['2026-03-28T00:00:00 01:00', '2026-03-28T00:00:00+01:00'],
    ['2026-03-28T00:00 0530', '2026-03-28T00:00+0530'],
    ['2026-03-28T00:00:00.5 01', '2026-03-28T00:00:00.5+01'],
    ['2026-03-28T00:00:00+01:00', '2026-03-28T00:00:00+01:00'],
    ['2026-03-28t00:00:00,25-03:00', '2026-03-28t00:00:00,25-03:00'],
    ['2026-03-28T00:00:00z', '2026-03-28T00:00:00z'],
    ['2026-03-28 00:00:00 01:00', '2026-03-28 00:00:00 01:00'],
  ])('%s → %s', (input, echo) => {
    expect(echoOffsetDateTime(input)).toBe(echo);
  });
});

const valid: UsageWindowInput = { startsAfter: '2026-03-01T00:00:00+01:00', endsBefore: '2026-03-08T00:00:00+01:00' };

function issuesOf(input: UsageWindowInput): [string | number, string][] {
  const result = parseUsageWindow(input);
  return result.ok ? [] : result.error.map((issue) => [issue.loc[0], issue.type]);
}

describe('parseUsageWindow', () => {
  it('applies the defaults day and UTC', () => {
    expect(parseUsageWindow(valid)).toEqual({
      ok: true,
      value: {
        startsAfter: new Date('2026-02-28T23:00:00.000Z'),
        endsBefore: new Date('2026-03-07T23:00:00.000Z'),
        granularity: 'day',
        timezone: 'UTC',
      },
    });
  });

  it.each<[string, UsageWindowInput, [string, string][]]>([
    ['valid hour Berlin', { ...valid, granularity: 'hour', timezone: 'Europe/Berlin' }, []],
    ['valid week Etc/GMT+5', { ...valid, granularity: 'week', timezone: 'Etc/GMT+5' }, []],
    [
      'missing both',
      {},
      [
        ['starts_after', 'missing'],
        ['ends_before', 'missing'],
      ],
    ],
    ['empty start', { ...valid, startsAfter: '' }, [['starts_after', 'missing']]],
    ['start without offset', { ...valid, startsAfter: '2026-03-01T00:00:00' }, [['starts_after', 'timezone_aware']]],
    ['end not a string', { ...valid, endsBefore: ['a', 'b'] }, [['ends_before', 'datetime_type']]],
    ['end equal to start', { ...valid, endsBefore: valid.startsAfter }, [['ends_before', 'greater_than']]],
    ['end before start', { startsAfter: valid.endsBefore, endsBefore: valid.startsAfter }, [['ends_before', 'greater_than']]],
    [
      'same instant, other offset',
      { startsAfter: '2026-03-01T00:00:00+01:00', endsBefore: '2026-02-28T23:00:00Z' },
      [['ends_before', 'greater_than']],
    ],
    ['bad granularity', { ...valid, granularity: 'month' }, [['granularity', 'enum']]],
    ['empty granularity', { ...valid, granularity: '' }, [['granularity', 'enum']]],
    ['empty timezone', { ...valid, timezone: '' }, [['timezone', 'zoneinfo_str']]],
    ['offset timezone', { ...valid, timezone: '+05:30' }, [['timezone', 'zoneinfo_str']]],
    ['UTC+5 timezone', { ...valid, timezone: 'UTC+5' }, [['timezone', 'zoneinfo_str']]],
    ['unknown timezone', { ...valid, timezone: 'Europe/Atlantis' }, [['timezone', 'zoneinfo_str']]],
    [
      'everything wrong at once',
      { startsAfter: 'x', endsBefore: '2026-03-01T00:00', granularity: 'year', timezone: 'local' },
      [
        ['starts_after', 'datetime_parsing'],
        ['ends_before', 'timezone_aware'],
        ['granularity', 'enum'],
        ['timezone', 'zoneinfo_str'],
      ],
    ],
  ])('%s', (_, input, expected) => {
    expect(issuesOf(input)).toEqual(expected);
  });

  it.each<[string, UsageWindowInput, [string, string][]]>([
    [
      'first bucket before the year 0000',
      { startsAfter: '0000-01-01T00:00:00Z', endsBefore: '0000-01-02T00:00:00Z', timezone: 'America/New_York' },
      [['starts_after', 'value_error']],
    ],
    [
      'a week bucket before the year 0000',
      { startsAfter: '0000-01-01T00:00:00Z', endsBefore: '0000-01-02T00:00:00Z', granularity: 'week' },
      [['starts_after', 'value_error']],
    ],
    [
      'the first Monday of the year 0000',
      { startsAfter: '0000-01-03T00:00:00Z', endsBefore: '0000-01-04T00:00:00Z', granularity: 'week' },
      [],
    ],
    [
      'last instant after the year 9999',
      { startsAfter: '9999-12-31T00:00:00Z', endsBefore: '9999-12-31T10:00:00.001Z', timezone: 'Pacific/Kiritimati' },
      [['ends_before', 'value_error']],
    ],
    [
      'last instant in the year 9999',
      { startsAfter: '9999-12-31T00:00:00Z', endsBefore: '9999-12-31T10:00:00Z', timezone: 'Pacific/Kiritimati' },
      [],
    ],
  ])('buckets outside the years 0000 to 9999 in the zone: %s', (_, input, expected) => {
    expect(issuesOf(input)).toEqual(expected);
  });

  it('names the bound in the issue context', () => {
    const result = parseUsageWindow({ startsAfter: '2026-01-01T00:00:00Z', endsBefore: '2026-06-01T00:00:00Z' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error[0]).toMatchObject({ loc: ['ends_before'], type: 'window_too_long', ctx: { max_days: 90 } });
  });
});

describe('the 90-day rule (calendar days, local wall clock)', () => {
  const plus1ms = (iso: string) => DateTime.fromISO(iso, { setZone: true }).plus({ milliseconds: 1 }).toISO() ?? '';

  it.each<[string, string, string, string, boolean]>([
    ['UTC exactly 90 days', 'UTC', '2026-01-01T00:00:00Z', '2026-04-01T00:00:00Z', true],
    ['UTC 90 days + 1 ms', 'UTC', '2026-01-01T00:00:00Z', plus1ms('2026-04-01T00:00:00Z'), false],
    // Berlin springs forward on 2026-03-29: 90 local days are 90 × 24 h − 1 h of elapsed time.
    ['Berlin across spring-forward, exactly 90 days', 'Europe/Berlin', '2026-03-01T00:00:00+01:00', '2026-05-30T00:00:00+02:00', true],
    ['Berlin across spring-forward, + 1 ms', 'Europe/Berlin', '2026-03-01T00:00:00+01:00', plus1ms('2026-05-30T00:00:00+02:00'), false],
    ['Berlin: 90 × 24 h elapsed is 90 days + 1 h local', 'Europe/Berlin', '2026-03-01T00:00:00+01:00', '2026-05-29T23:00:00Z', false],
    // Berlin falls back on 2026-10-25: 90 local days are 90 × 24 h + 1 h of elapsed time.
    ['Berlin across fall-back, exactly 90 days', 'Europe/Berlin', '2026-09-01T00:00:00+02:00', '2026-11-30T00:00:00+01:00', true],
    ['Berlin across fall-back, + 1 ms', 'Europe/Berlin', '2026-09-01T00:00:00+02:00', plus1ms('2026-11-30T00:00:00+01:00'), false],
    ['offsets in the input do not matter, the zone does', 'Europe/Berlin', '2026-02-28T23:00:00Z', '2026-05-29T22:00:00Z', true],
    ['the same instants read in UTC are 90 days − 1 h', 'UTC', '2026-02-28T23:00:00Z', '2026-05-29T22:00:00Z', true],
    ['the same instants read in Tokyo: 89 days 23 h', 'Asia/Tokyo', '2026-02-28T23:00:00Z', '2026-05-29T22:00:00Z', true],
    [
      'Tokyo has no DST: 90 × 24 h + 1 ms is too long',
      'Asia/Tokyo',
      '2026-01-01T00:00:00+09:00',
      plus1ms('2026-04-01T00:00:00+09:00'),
      false,
    ],
  ])('%s', (_, timezone, startsAfter, endsBefore, ok) => {
    expect(parseUsageWindow({ startsAfter, endsBefore, timezone }).ok).toBe(ok);
  });
});
