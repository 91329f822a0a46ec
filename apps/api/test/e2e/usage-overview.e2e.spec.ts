import { issueKinds } from '../support/issue-kinds';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

describe('GET /v1/usage/overview', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  const overview = (org: TestOrganization, query: Record<string, string>) =>
    h.t.http().get('/v1/usage/overview').query(query).set(org.auth);

  /** A call that started at `startIso`: two people for the given minutes each and the translator for one span. */
  async function call(org: TestOrganization, startIso: string, seconds: number[], translatorSeconds = 0) {
    const room = await createRoom(h, org);
    const t0 = Math.floor(new Date(startIso).getTime() / 1000);
    for (const [i, duration] of seconds.entries()) {
      const identity = `p${i}`;
      await token(h, org, room.name, { languages: [i % 2 === 0 ? 'en' : 'de'], identity }).expect(201);
      const p = { identity, sid: `PA_${room.id.slice(0, 8)}_${i}`, joinedAt: String(t0 + i) };
      await webhook(h, events.participantJoined(room.livekitName, p, { createdAt: t0 + i })).expect(200);
      await webhook(h, events.participantLeft(room.livekitName, p, { createdAt: t0 + i + duration })).expect(200);
    }
    if (translatorSeconds > 0) {
      const agent = { identity: 'translator', sid: `PA_${room.id.slice(0, 8)}_t`, kind: 'AGENT' as const, joinedAt: String(t0 + 1) };
      await webhook(h, events.participantJoined(room.livekitName, agent, { createdAt: t0 + 1 })).expect(200);
      await webhook(h, events.participantLeft(room.livekitName, agent, { createdAt: t0 + 1 + translatorSeconds })).expect(200);
    }
    await settled(h);
    return room;
  }

  it('buckets rooms by their start in the requested zone, returns empty buckets, and sums them in the summary', async () => {
    const org = await createOrganization(h.t);
    await call(org, '2026-03-28T10:00:00+01:00', [120, 61], 90); // 2 + 2 + translator 2 = 6 min
    await call(org, '2026-03-28T23:30:00+01:00', [30]); // 1 min, still the 28th in Berlin
    await call(org, '2026-03-30T00:10:00+02:00', [600, 600]); // 10 + 10
    const res = await overview(org, {
      starts_after: '2026-03-28T00:00:00+01:00',
      ends_before: '2026-03-31T00:00:00+02:00',
      granularity: 'day',
      timezone: 'Europe/Berlin',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      starts_after: '2026-03-28T00:00:00+01:00',
      ends_before: '2026-03-31T00:00:00+02:00',
      granularity: 'day',
      timezone: 'Europe/Berlin',
      summary: { total_minutes: 27, total_rooms: 3, total_participants: 5 },
      buckets: [
        { bucket: '2026-03-28T00:00:00.000+01:00', minutes: 7, avg_room_minutes: 4, sessions: 2 },
        { bucket: '2026-03-29T00:00:00.000+01:00', minutes: 0, avg_room_minutes: 0, sessions: 0 },
        { bucket: '2026-03-30T00:00:00.000+02:00', minutes: 20, avg_room_minutes: 20, sessions: 1 },
      ],
    });
  });

  it('answers a repeated window from its cache only while nothing changed: every new call shows at once', async () => {
    const org = await createOrganization(h.t);
    const other = await createOrganization(h.t);
    const query = { starts_after: '2026-05-04T00:00:00Z', ends_before: '2026-05-05T00:00:00Z', granularity: 'hour', timezone: 'UTC' };
    await call(org, '2026-05-04T09:00:00Z', [120]); // 2 min
    const first = await overview(org, query).expect(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.body.summary).toEqual({ total_minutes: 2, total_rooms: 1, total_participants: 1 });
    expect((await overview(org, query).expect(200)).body).toEqual(first.body);

    await call(org, '2026-05-04T09:20:00Z', [300, 61]); // 5 + 2 min, same hour
    const second = await overview(org, query).expect(200);
    expect(second.body.summary).toEqual({ total_minutes: 9, total_rooms: 2, total_participants: 3 });
    expect(second.body.buckets[9]).toEqual({ bucket: '2026-05-04T09:00:00.000+00:00', minutes: 9, avg_room_minutes: 5, sessions: 2 });

    // Another organization's identical window is its own, and its calls do not show here.
    await call(other, '2026-05-04T09:00:00Z', [600]);
    expect((await overview(other, query).expect(200)).body.summary.total_minutes).toBe(10);
    expect((await overview(org, query).expect(200)).body).toEqual(second.body);

    // A room ended through the API closes its open connection: its minutes show at once too.
    const room = await createRoom(h, org);
    const t0 = Math.floor(Date.parse('2026-05-04T20:00:00Z') / 1000);
    await token(h, org, room.name, { languages: ['en'], identity: 'late' }).expect(201);
    const late = { identity: 'late', sid: `PA_${room.id.slice(0, 8)}_late`, joinedAt: String(t0) };
    await webhook(h, events.participantJoined(room.livekitName, late, { createdAt: t0 })).expect(200);
    await settled(h);
    const open = (await overview(org, query).expect(200)).body;
    expect(open.summary).toEqual({ total_minutes: 9, total_rooms: 3, total_participants: 4 });
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
    const closed = (await overview(org, query).expect(200)).body;
    expect(closed.summary.total_minutes).toBeGreaterThan(9);
    expect(closed.buckets[20].minutes).toBe(closed.summary.total_minutes - 9);
  });

  it('has 23 hourly buckets over the spring-forward day and 25 over the fall-back day', async () => {
    const org = await createOrganization(h.t);
    await call(org, '2026-03-29T03:20:00+02:00', [60]);
    const spring = await overview(org, {
      starts_after: '2026-03-29T00:00:00+01:00',
      ends_before: '2026-03-30T00:00:00+02:00',
      granularity: 'hour',
      timezone: 'Europe/Berlin',
    });
    expect(spring.body.buckets).toHaveLength(23);
    expect(spring.body.buckets[2]).toEqual({ bucket: '2026-03-29T03:00:00.000+02:00', minutes: 1, avg_room_minutes: 1, sessions: 1 });
    expect(spring.body.summary.total_rooms).toBe(1);
    const fall = await overview(org, {
      starts_after: '2026-10-25T00:00:00+02:00',
      ends_before: '2026-10-26T00:00:00+01:00',
      granularity: 'hour',
      timezone: 'Europe/Berlin',
    });
    expect(fall.body.buckets).toHaveLength(25);
  });

  it('aligns hourly buckets to the local hour of half- and three-quarter-hour zones', async () => {
    const org = await createOrganization(h.t);
    await call(org, '2026-06-01T10:20:00+05:45', [60]); // Kathmandu: the 10:00 local bucket
    const kathmandu = await overview(org, {
      starts_after: '2026-06-01T09:00:00+05:45',
      ends_before: '2026-06-01T12:00:00+05:45',
      granularity: 'hour',
      timezone: 'Asia/Kathmandu',
    });
    expect(kathmandu.body.buckets.map((b: { bucket: string; sessions: number }) => [b.bucket, b.sessions])).toEqual([
      ['2026-06-01T09:00:00.000+05:45', 0],
      ['2026-06-01T10:00:00.000+05:45', 1],
      ['2026-06-01T11:00:00.000+05:45', 0],
    ]);
    const stJohns = await overview(org, {
      starts_after: '2026-06-01T00:00:00Z',
      ends_before: '2026-06-01T03:00:00Z',
      granularity: 'hour',
      timezone: 'America/St_Johns',
    });
    expect(stJohns.body.buckets.map((b: { bucket: string }) => b.bucket)).toEqual([
      '2026-05-31T21:00:00.000-02:30',
      '2026-05-31T22:00:00.000-02:30',
      '2026-05-31T23:00:00.000-02:30',
      '2026-06-01T00:00:00.000-02:30',
    ]);
  });

  it('counts rooms exactly at the window edges, even inside a partial slot', async () => {
    const org = await createOrganization(h.t);
    await call(org, '2026-05-05T10:05:00Z', [60]);
    await call(org, '2026-05-05T10:10:00Z', [60]);
    const inside = await overview(org, { starts_after: '2026-05-05T10:07:00Z', ends_before: '2026-05-05T10:11:00Z', granularity: 'hour' });
    expect(inside.body.summary).toEqual({ total_minutes: 1, total_rooms: 1, total_participants: 1 });
    const both = await overview(org, {
      starts_after: '2026-05-05T10:05:00Z',
      ends_before: '2026-05-05T10:10:00.001Z',
      granularity: 'hour',
    });
    expect(both.body.summary.total_rooms).toBe(2);
    expect(both.body.timezone).toBe('UTC');
  });

  it('has a weekly point for each local week touched by 90 days (14 from a Thursday), each on a local Monday midnight, and 2160 hourly points', async () => {
    const org = await createOrganization(h.t);
    const weekly = await overview(org, {
      starts_after: '2026-01-01T00:00:00+01:00',
      ends_before: '2026-04-01T00:00:00+02:00',
      granularity: 'week',
      timezone: 'Europe/Berlin',
    });
    expect(weekly.status).toBe(200);
    expect(weekly.body.buckets).toHaveLength(14);
    for (const { bucket } of weekly.body.buckets as { bucket: string }[]) {
      expect(bucket).toMatch(/T00:00:00\.000\+0[12]:00$/);
      expect(new Date(`${bucket.slice(0, 10)}T00:00:00Z`).getUTCDay()).toBe(1);
    }
    expect(weekly.body.buckets[0].bucket).toBe('2025-12-29T00:00:00.000+01:00');
    const hourly = await overview(org, { starts_after: '2026-01-01T00:00:00Z', ends_before: '2026-04-01T00:00:00Z', granularity: 'hour' });
    expect(hourly.body.buckets).toHaveLength(90 * 24);
  });

  it("never shows another organization's usage", async () => {
    const org = await createOrganization(h.t);
    const other = await createOrganization(h.t);
    await call(other, '2026-07-01T12:00:00Z', [60]);
    const res = await overview(org, { starts_after: '2026-07-01T00:00:00Z', ends_before: '2026-07-02T00:00:00Z' });
    expect(res.body.summary).toEqual({ total_minutes: 0, total_rooms: 0, total_participants: 0 });
    expect(res.body.granularity).toBe('day');
  });

  it.each([
    [{ ends_before: '2026-01-02T00:00:00Z' }, [['query.starts_after', 'missing']]],
    [{ starts_after: '2026-01-01T00:00:00', ends_before: '2026-01-02T00:00:00Z' }, [['query.starts_after', 'timezone_aware']]],
    [{ starts_after: 'yesterday', ends_before: '2026-01-02T00:00:00Z' }, [['query.starts_after', 'datetime_parsing']]],
    [{ starts_after: '2026-01-02T00:00:00Z', ends_before: '2026-01-02T00:00:00Z' }, [['query.ends_before', 'greater_than']]],
    [{ starts_after: '2026-01-01T00:00:00Z', ends_before: '2026-04-01T00:00:00.001Z' }, [['query.ends_before', 'window_too_long']]],
    [
      { starts_after: '2026-01-01T00:00:00Z', ends_before: '2026-01-02T00:00:00Z', timezone: '+05:30' },
      [['query.timezone', 'zoneinfo_str']],
    ],
    [
      { starts_after: '2026-01-01T00:00:00Z', ends_before: '2026-01-02T00:00:00Z', timezone: 'Mars/Olympus' },
      [['query.timezone', 'zoneinfo_str']],
    ],
    [{ starts_after: '2026-01-01T00:00:00Z', ends_before: '2026-01-02T00:00:00Z', granularity: 'minute' }, [['query.granularity', 'enum']]],
    [
      {},
      [
        ['query.starts_after', 'missing'],
        ['query.ends_before', 'missing'],
      ],
    ],
  ])('answers %j with 422 listing every violated parameter', async (query, expected) => {
    const org = await createOrganization(h.t);
    const res = await overview(org, query as Record<string, string>);
    expect(res.status).toBe(422);
    expect(issueKinds(res)).toEqual(expected);
    for (const d of res.body.detail) expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
  });

  it('answers an empty granularity or timezone with 422 like any invalid value; only an absent one takes the default', async () => {
    const org = await createOrganization(h.t);
    const window = 'starts_after=2026-01-01T00:00:00Z&ends_before=2026-01-02T00:00:00Z';
    const get = (query: string) => h.t.http().get(`/v1/usage/overview?${query}`).set(org.auth);
    const granularity = {
      loc: ['query', 'granularity'],
      msg: "Input should be 'hour', 'day' or 'week'.",
      type: 'enum',
      input: '',
      ctx: { expected: "'hour', 'day' or 'week'" },
    };
    const timezone = expect.objectContaining({ loc: ['query', 'timezone'], type: 'zoneinfo_str', input: '', ctx: {} });

    const emptyGranularity = await get(`${window}&granularity=`);
    expect(emptyGranularity.status).toBe(422);
    expect(emptyGranularity.body).toEqual({ detail: [granularity] });
    const emptyTimezone = await get(`${window}&timezone=`);
    expect(emptyTimezone.status).toBe(422);
    expect(emptyTimezone.body).toEqual({ detail: [timezone] });
    const both = await get(`${window}&granularity=&timezone=`);
    expect(both.status).toBe(422);
    expect(both.body).toEqual({ detail: [granularity, timezone] });

    const absent = await get(window);
    expect(absent.status).toBe(200);
    expect(absent.body).toMatchObject({ granularity: 'day', timezone: 'UTC' });
  });

  it('echoes a window whose unencoded + arrived as a space with its + restored, and an encoded one byte for byte', async () => {
    const org = await createOrganization(h.t);
    const get = (query: string) => h.t.http().get(`/v1/usage/overview?${query}`).set(org.auth);

    const unencoded = await get('starts_after=2026-03-28T00:00:00+01:00&ends_before=2026-03-29T12:30+0530&timezone=Europe/Berlin');
    expect(unencoded.status).toBe(200);
    expect(unencoded.body).toMatchObject({ starts_after: '2026-03-28T00:00:00+01:00', ends_before: '2026-03-29T12:30+0530' });
    for (const echoed of [unencoded.body.starts_after, unencoded.body.ends_before] as string[]) {
      expect(Number.isNaN(new Date(echoed).getTime())).toBe(false);
    }
    expect(unencoded.body.buckets[0].bucket).toBe('2026-03-28T00:00:00.000+01:00');

    const exact = ['2026-03-28T00:00:00.5%2B01', '2026-03-29t00:00:00,250-03:00'];
    const encoded = await get(`starts_after=${exact[0]}&ends_before=${exact[1]}`);
    expect(encoded.status).toBe(200);
    expect(encoded.body).toMatchObject({ starts_after: '2026-03-28T00:00:00.5+01', ends_before: '2026-03-29t00:00:00,250-03:00' });
    const zulu = await get('starts_after=2026-03-28T00:00:00z&ends_before=2026-03-29T00:00:00.000Z');
    expect(zulu.body).toMatchObject({ starts_after: '2026-03-28T00:00:00z', ends_before: '2026-03-29T00:00:00.000Z' });
  });

  it('answers an offset of 24 hours or more, or with minutes past 59, with 422 datetime_parsing', async () => {
    const org = await createOrganization(h.t);
    const get = (query: string) => h.t.http().get(`/v1/usage/overview?${query}`).set(org.auth);
    const parsing = (field: string, input: string) => ({
      loc: ['query', field],
      msg: 'Input should be an ISO 8601 datetime with a UTC offset.',
      type: 'datetime_parsing',
      input,
      ctx: {},
    });
    for (const [sent, received] of [
      ['2026-01-01T00:00:00%2B99:99', '2026-01-01T00:00:00+99:99'],
      ['2026-01-01T00:00:00%2B24:00', '2026-01-01T00:00:00+24:00'],
      ['2026-01-01T00:00:00-24:00', '2026-01-01T00:00:00-24:00'],
      ['2026-01-01T00:00:00%2B2400', '2026-01-01T00:00:00+2400'],
      ['2026-01-01T00:00:00%2B05:60', '2026-01-01T00:00:00+05:60'],
    ]) {
      const res = await get(`starts_after=${sent}&ends_before=2026-01-03T00:00:00Z`);
      expect({ sent, status: res.status, body: res.body }).toEqual({
        sent,
        status: 422,
        body: { detail: [parsing('starts_after', received)] },
      });
    }
    // The space an unencoded + becomes is read as +, and held to the same bound.
    const spaced = await get('starts_after=2026-01-01T00:00:00Z&ends_before=2026-01-03T00:00:00+24:00');
    expect(spaced.status).toBe(422);
    expect(spaced.body).toEqual({ detail: [parsing('ends_before', '2026-01-03T00:00:00 24:00')] });

    const widest = await get('starts_after=2026-01-01T00:00:00%2B23:59&ends_before=2026-01-03T00:00:00-23:59');
    expect(widest.status).toBe(200);
    expect(widest.body).toMatchObject({ starts_after: '2026-01-01T00:00:00+23:59', ends_before: '2026-01-03T00:00:00-23:59' });
  });

  it('labels buckets of an offset with seconds (local mean time) as ±hh:mm:ss, so every bucket is a valid date-time', async () => {
    const org = await createOrganization(h.t);
    const monrovia = await overview(org, {
      starts_after: '1971-01-01T00:00:00Z',
      ends_before: '1971-01-03T00:00:00Z',
      timezone: 'Africa/Monrovia',
    });
    expect(monrovia.status).toBe(200);
    expect(monrovia.body.buckets.map((b: { bucket: string }) => b.bucket)).toEqual([
      '1970-12-31T00:00:00.000-00:44:30',
      '1971-01-01T00:00:00.000-00:44:30',
      '1971-01-02T00:00:00.000-00:44:30',
    ]);
    const berlin = await overview(org, {
      starts_after: '0001-01-01T00:00:00Z',
      ends_before: '0001-01-01T02:00:00Z',
      granularity: 'hour',
      timezone: 'Europe/Berlin',
    });
    expect(berlin.status).toBe(200);
    expect(berlin.body.buckets.map((b: { bucket: string }) => b.bucket)).toEqual([
      '0001-01-01T00:00:00.000+00:53:28',
      '0001-01-01T01:00:00.000+00:53:28',
      '0001-01-01T02:00:00.000+00:53:28',
    ]);
    // Whole-minute offsets keep ±hh:mm.
    const now = await overview(org, {
      starts_after: '2026-01-01T00:00:00Z',
      ends_before: '2026-01-02T00:00:00Z',
      timezone: 'Africa/Monrovia',
    });
    expect(now.body.buckets.map((b: { bucket: string }) => b.bucket)).toEqual(['2026-01-01T00:00:00.000+00:00']);
    const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}(?::\d{2})?$/;
    for (const body of [monrovia.body, berlin.body, now.body]) {
      for (const { bucket } of body.buckets as { bucket: string }[]) expect(bucket).toMatch(dateTime);
    }
  });

  it('answers a window whose buckets would fall outside the years 0000 to 9999 in the zone with 422', async () => {
    const org = await createOrganization(h.t);
    const late = await overview(org, {
      starts_after: '9999-12-31T00:00:00Z',
      ends_before: '9999-12-31T23:00:00Z',
      timezone: 'Pacific/Kiritimati',
    });
    expect(late.status).toBe(422);
    expect(issueKinds(late)).toEqual([['query.ends_before', 'value_error']]);
    const early = await overview(org, {
      starts_after: '0000-01-01T00:00:00Z',
      ends_before: '0000-01-02T00:00:00Z',
      timezone: 'America/New_York',
    });
    expect(early.status).toBe(422);
    expect(issueKinds(early)).toEqual([['query.starts_after', 'value_error']]);
    // The last local day of the year 9999 is still a bucket.
    const last = await overview(org, {
      starts_after: '9999-12-31T00:00:00Z',
      ends_before: '9999-12-31T10:00:00Z',
      timezone: 'Pacific/Kiritimati',
    });
    expect(last.status).toBe(200);
    expect(last.body.buckets.map((b: { bucket: string }) => b.bucket)).toEqual(['9999-12-31T00:00:00.000+14:00']);
  });

  it('takes zone names exactly as the time zone database spells them: links as sent, case variants refused', async () => {
    const org = await createOrganization(h.t);
    const window = { starts_after: '2026-01-01T00:00:00Z', ends_before: '2026-01-02T00:00:00Z' };
    for (const timezone of ['europe/berlin', 'EUROPE/BERLIN', 'utc', 'us/eastern', 'asia/calcutta', 'etc/utc']) {
      const res = await overview(org, { ...window, timezone });
      expect({ timezone, status: res.status }).toEqual({ timezone, status: 422 });
      expect(res.body).toEqual({
        detail: [expect.objectContaining({ loc: ['query', 'timezone'], type: 'zoneinfo_str', input: timezone })],
      });
    }
    for (const [timezone, bucket] of [
      ['US/Eastern', '2025-12-31T00:00:00.000-05:00'],
      ['Asia/Calcutta', '2026-01-01T00:00:00.000+05:30'],
      ['Etc/UTC', '2026-01-01T00:00:00.000+00:00'],
      ['UTC', '2026-01-01T00:00:00.000+00:00'],
      ['Europe/Berlin', '2026-01-01T00:00:00.000+01:00'],
    ]) {
      // Asked twice: the second answer comes from the remembered valid names.
      for (let i = 0; i < 2; i++) {
        const res = await overview(org, { ...window, timezone });
        expect({ timezone, status: res.status }).toEqual({ timezone, status: 200 });
        expect(res.body.timezone).toBe(timezone);
        expect(res.body.buckets[0].bucket).toBe(bucket);
      }
    }
    // A case variant asked after its exact name was accepted is still refused.
    expect((await overview(org, { ...window, timezone: 'europe/berlin' })).status).toBe(422);
  });

  it('accepts exactly 90 calendar days across a DST change', async () => {
    const org = await createOrganization(h.t);
    const res = await overview(org, {
      starts_after: '2026-01-01T00:00:00+01:00',
      ends_before: '2026-04-01T00:00:00+02:00',
      timezone: 'Europe/Berlin',
    });
    expect(res.status).toBe(200);
    expect(res.body.buckets).toHaveLength(90);
  });
});
