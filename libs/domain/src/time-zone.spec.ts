import { ianaZone, isIanaZoneName } from './time-zone';

describe('isIanaZoneName', () => {
  it.each([
    'UTC',
    'Etc/UTC',
    'Etc/GMT+5',
    'Europe/Berlin',
    'America/St_Johns',
    'Asia/Kathmandu',
    'Australia/Lord_Howe',
    'America/Argentina/Buenos_Aires',
    // Links are names of the database too, spelled as it spells them.
    'US/Eastern',
    'Asia/Calcutta',
    'Europe/Kiev',
    'Europe/Kyiv',
    'GMT',
    'GMT+0',
    'EST5EDT',
  ])('accepts %s', (name) => {
    expect(isIanaZoneName(name)).toBe(true);
  });

  it.each([
    '',
    '+05:30',
    '-08:00',
    '+0530',
    'UTC+5',
    'UTC+05:30',
    'GMT-3',
    'utc-2',
    'Z',
    'local',
    'system',
    'default',
    'Mars/Olympus',
    '5',
    'PST',
    // Names are case-sensitive: Intl accepts these, the time zone database (and zoneinfo) does not.
    'europe/berlin',
    'EUROPE/BERLIN',
    'Europe/berlin',
    'utc',
    'Utc',
    'etc/utc',
    'us/eastern',
    'asia/calcutta',
    'etc/gmt+5',
  ])('refuses %j', (name) => {
    expect(isIanaZoneName(name)).toBe(false);
  });
});

describe('isIanaZoneName, asked again', () => {
  it('keeps refusing a case variant after the exact name was accepted (and remembered)', () => {
    expect(isIanaZoneName('Asia/Tokyo')).toBe(true);
    expect(isIanaZoneName('asia/tokyo')).toBe(false);
    expect(isIanaZoneName('Asia/Tokyo')).toBe(true);
    expect(isIanaZoneName('asia/tokyo')).toBe(false);
  });
});

describe('ianaZone', () => {
  it('throws a RangeError for a fixed offset', () => {
    expect(() => ianaZone('+05:30')).toThrow(RangeError);
  });

  it('returns a luxon IANA zone', () => {
    expect(ianaZone('Europe/Berlin').name).toBe('Europe/Berlin');
  });
});
