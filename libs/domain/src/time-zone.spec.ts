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
  ])('refuses %j', (name) => {
    expect(isIanaZoneName(name)).toBe(false);
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
