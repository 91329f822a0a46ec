import { QUEUES, TRANSLATOR_JOBS } from '@app/contracts';
import { QueueRegistry } from '../../src/queue/queue.registry';
import { createOrganization, type TestOrganization } from '../support/factories';
import { serializeEvent, signWebhook } from '../support/livekit-webhooks';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

describe('LiveKit webhooks', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  const connections = async (roomId: string) =>
    (await h.t.db.query(
      `SELECT identity, joined_at, left_at, connection_minutes, kind FROM connections WHERE room_id = $1 ORDER BY joined_at, id`,
      [roomId],
    )) as {
      identity: string;
      joined_at: Date;
      left_at: Date | null;
      connection_minutes: number | null;
      kind: string | null;
    }[];

  const storedEvents = async () => ((await h.t.db.query(`SELECT count(*)::int AS n FROM inbound_events`)) as { n: number }[])[0].n;
  /** POSTs a body as LiveKit does, with these headers (none: unsigned). */
  const postWebhook = (body: string, headers: Record<string, string>) =>
    h.t
      .http()
      .post('/v1/webhooks/livekit')
      .set({ 'Content-Type': 'application/webhook+json', ...headers })
      .send(body);
  const signed = (body: string) => ({ Authorization: signWebhook(body, h.livekit.apiKey, h.livekit.apiSecret) });

  async function translatorJobs(roomId: string) {
    const queue = h.t.app.get(QueueRegistry).queue(QUEUES.translatorPresence);
    const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'paused', 'prioritized']);
    return jobs
      .filter((job) => (job.data as { roomId: string }).roomId === roomId)
      .sort((a, b) => (a.data as { generation: number }).generation - (b.data as { generation: number }).generation)
      .map((job) => ({ name: job.name, id: job.id, data: job.data as { generation: number; languages?: string[]; mode?: string } }));
  }

  async function waitForJobs(roomId: string, count: number) {
    const deadline = Date.now() + 5000;
    for (;;) {
      const jobs = await translatorJobs(roomId);
      if (jobs.length >= count || Date.now() > deadline) return jobs;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function roomWithTwoSpeakers(org: TestOrganization) {
    const room = await createRoom(h, org);
    await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
    await token(h, org, room.name, { languages: ['de'], identity: 'bob' }).expect(201);
    return room;
  }

  it('rejects a missing, wrong-secret or tampered signature with 401 and stores nothing', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const body = serializeEvent(events.participantJoined(room.livekitName, 'ann'));
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: signWebhook(body, h.livekit.apiKey, 'not-the-secret') },
      { Authorization: signWebhook(body.replace('ann', 'eve'), h.livekit.apiKey, h.livekit.apiSecret) },
      { Authorization: 'garbage' },
    ];
    const before = await storedEvents();
    for (const headers of attempts) {
      const res = await postWebhook(body, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
    const stored = (await h.t.db.query(`SELECT payload FROM inbound_events WHERE payload::text LIKE $1`, [
      `%${room.livekitName}%`,
    ])) as unknown[];
    expect(stored).toHaveLength(0);
    expect(await storedEvents()).toBe(before);
  });

  it('refuses a signed body that is not a storable event with 400 and stores nothing', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const joined = serializeEvent(events.participantJoined(room.livekitName, 'ann'));
    const bodies = [
      'not json',
      '[1, 2]',
      JSON.stringify({ id: 'EV_no_type', room: { name: room.livekitName } }),
      joined.replace('"ann"', '"an\\u0000n"'),
      joined.replace('"ann"', '"an\\ud800n"'),
      `{"event":"participant_joined","deep":${'['.repeat(150)}${']'.repeat(150)}}`,
    ];
    const before = await storedEvents();
    for (const body of bodies) {
      const res = await postWebhook(body, signed(body));
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body).toEqual({ detail: expect.stringContaining('not a LiveKit webhook event') });
    }
    expect(await storedEvents()).toBe(before);
    // The same event, storable, goes through and is stored as it came.
    expect((await postWebhook(joined, signed(joined))).status).toBe(200);
    const stored = (await h.t.db.query(`SELECT payload FROM inbound_events WHERE subject = $1`, [room.livekitName])) as {
      payload: unknown;
    }[];
    expect(stored.map((row) => row.payload)).toEqual([JSON.parse(joined)]);
  });

  it('applies duplicated, reordered and concurrent deliveries exactly once', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTwoSpeakers(org);
    const t0 = Math.floor(Date.now() / 1000) - 3600;
    const annJoined = events.participantJoined(
      room.livekitName,
      { identity: 'ann', sid: 'PA_ann1', joinedAt: String(t0) },
      { createdAt: t0 },
    );
    const annLeft = events.participantLeft(
      room.livekitName,
      { identity: 'ann', sid: 'PA_ann1', joinedAt: String(t0) },
      { createdAt: t0 + 125 },
    );
    const annBack = events.participantJoined(
      room.livekitName,
      { identity: 'ann', sid: 'PA_ann2', joinedAt: String(t0 + 200) },
      { createdAt: t0 + 200 },
    );
    const bobJoined = events.participantJoined(
      room.livekitName,
      { identity: 'bob', sid: 'PA_bob', joinedAt: String(t0 + 10) },
      { createdAt: t0 + 10 },
    );
    const bobLeft = events.participantLeft(
      room.livekitName,
      { identity: 'bob', sid: 'PA_bob', joinedAt: String(t0 + 10) },
      { createdAt: t0 + 70 },
    );

    // left before joined, everything twice, and a burst of the same event concurrently
    await webhook(h, annLeft).expect(200);
    await webhook(h, bobLeft).expect(200);
    await Promise.all([annJoined, annJoined, annJoined, bobJoined, bobJoined, annBack, annBack].map((e) => webhook(h, e).expect(200)));
    await webhook(h, annLeft).expect(200);
    await settled(h);

    const rows = await connections(room.id);
    expect(
      rows.map((r) => [r.identity, r.joined_at.getTime() / 1000, r.left_at ? r.left_at.getTime() / 1000 : null, r.connection_minutes]),
    ).toEqual([
      ['ann', t0, t0 + 125, 3],
      ['bob', t0 + 10, t0 + 70, 1],
      ['ann', t0 + 200, null, null],
    ]);
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.total_connection_minutes).toBe(4);
    expect(detail.body.total_charged_cents).toBe(4 * h.t.config.rates.participantCentsPerMinute);
    const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE room_id = $1`, [room.id])) as { n: number }[];
    expect(n).toBe(2);
  });

  it('records an agent participant as the translator, billed at its own rate', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const t0 = Math.floor(Date.now() / 1000) - 600;
    await webhook(
      h,
      events.participantJoined(
        room.livekitName,
        { identity: 'agent-x', sid: 'PA_ag', kind: 'AGENT', joinedAt: String(t0) },
        { createdAt: t0 },
      ),
    ).expect(200);
    await webhook(
      h,
      events.participantLeft(
        room.livekitName,
        { identity: 'agent-x', sid: 'PA_ag', kind: 'AGENT', joinedAt: String(t0) },
        { createdAt: t0 + 61 },
      ),
    ).expect(200);
    await settled(h);
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.participants).toEqual([
      expect.objectContaining({
        participant_identity: 'agent-x',
        participant_kind: 'translator',
        languages: null,
        connection_minutes: 2,
        charged_cents: 2 * h.t.config.rates.translatorCentsPerMinute,
      }),
    ]);
  });

  it('enqueues one dispatch when two languages are present and one dismiss when fewer remain, whatever the duplicates', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTwoSpeakers(org);
    const annJoined = events.participantJoined(room.livekitName, { identity: 'ann', sid: 'PA_a' });
    const bobJoined = events.participantJoined(room.livekitName, { identity: 'bob', sid: 'PA_b' });
    await webhook(h, annJoined).expect(200);
    await settled(h);
    expect(await translatorJobs(room.id)).toEqual([]);

    await Promise.all([bobJoined, bobJoined, annJoined].map((e) => webhook(h, e).expect(200)));
    await settled(h);
    const dispatched = await waitForJobs(room.id, 1);
    expect(dispatched).toEqual([
      {
        name: TRANSLATOR_JOBS.dispatch,
        id: `${room.id}.1.dispatch`,
        data: expect.objectContaining({ generation: 1, languages: ['de', 'en'], mode: 'dual', livekitRoom: room.livekitName }),
      },
    ]);

    const bobLeft = events.participantLeft(room.livekitName, { identity: 'bob', sid: 'PA_b' });
    await Promise.all([bobLeft, bobLeft].map((e) => webhook(h, e).expect(200)));
    await settled(h);
    const after = await waitForJobs(room.id, 2);
    expect(after.map((j) => [j.name, j.data.generation])).toEqual([
      [TRANSLATOR_JOBS.dispatch, 1],
      [TRANSLATOR_JOBS.dismiss, 2],
    ]);
  });

  it('dismisses the translator when the room ends, by DELETE or by room_finished', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTwoSpeakers(org);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'ann', sid: 'PA_a' })).expect(200);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'bob', sid: 'PA_b' })).expect(200);
    await settled(h);
    await waitForJobs(room.id, 1);
    const finished = Math.ceil(Date.now() / 1000) + 1;
    await webhook(h, events.roomFinished(room.livekitName, { createdAt: finished })).expect(200);
    await webhook(h, events.roomFinished(room.livekitName, { createdAt: finished })).expect(200);
    await settled(h);
    const jobs = await waitForJobs(room.id, 2);
    expect(jobs.map((j) => j.name)).toEqual([TRANSLATOR_JOBS.dispatch, TRANSLATOR_JOBS.dismiss]);
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.status).toBe('ended');
    expect(detail.body.ended_at).toBe(new Date(finished * 1000).toISOString());
    expect(detail.body.participants.every((p: { left_at: string | null }) => p.left_at === detail.body.ended_at)).toBe(true);
  });

  it('closes a connection first reported by its leave, after the room ended, at the room end', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTwoSpeakers(org);
    const finished = Math.ceil(Date.now() / 1000) + 1;
    await webhook(h, events.roomFinished(room.livekitName, { createdAt: finished })).expect(200);
    await settled(h);
    const late = { identity: 'ann', sid: 'PA_late', joinedAt: String(finished - 120) };
    await webhook(h, events.participantLeft(room.livekitName, late, { createdAt: finished + 600 })).expect(200);
    await settled(h);
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.ended_at).toBe(new Date(finished * 1000).toISOString());
    expect(detail.body.participants).toEqual([
      expect.objectContaining({
        participant_identity: 'ann',
        joined_at: new Date((finished - 120) * 1000).toISOString(),
        left_at: new Date(finished * 1000).toISOString(),
        connection_minutes: 2,
        charged_cents: 2 * h.t.config.rates.participantCentsPerMinute,
      }),
    ]);
    expect(detail.body.total_connection_minutes).toBe(2);
  });

  it('keeps the totals of an ended room final: a connection that began after the end is not recorded or billed', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWithTwoSpeakers(org);
    const t0 = Math.floor(Date.now() / 1000) - 300;
    const ann = { identity: 'ann', sid: 'PA_ann', joinedAt: String(t0) };
    await webhook(h, events.participantJoined(room.livekitName, ann, { createdAt: t0 })).expect(200);
    await settled(h);
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
    const ended = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    const endedAt = Math.ceil(new Date(ended.body.ended_at).getTime() / 1000);

    const late = { identity: 'bob', sid: 'PA_bob', joinedAt: String(endedAt + 5) };
    await webhook(h, events.participantJoined(room.livekitName, late, { createdAt: endedAt + 5 })).expect(200);
    await webhook(h, events.participantLeft(room.livekitName, late, { createdAt: endedAt + 65 })).expect(200);
    const ghost = { identity: 'cleo', sid: 'PA_cleo', joinedAt: String(endedAt + 10) };
    await webhook(h, events.participantLeft(room.livekitName, ghost, { createdAt: endedAt + 70 })).expect(200);
    await settled(h);

    const after = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(after.body).toEqual(ended.body);
    expect(after.body.participants.map((p: { participant_identity: string }) => p.participant_identity)).toEqual(['ann']);
    const credit = await h.t.http().get('/v1/billing/credit').set(org.auth);
    expect(credit.body.credit_cents).toBe(10_000 - ended.body.total_charged_cents);
  });

  it('applies a room_finished stamped before the room was created as a no-op: the room stays live and nothing is billed', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
    const createdAt = Date.parse((await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body.created_at as string) / 1000;
    const joined = Math.ceil(createdAt) + 1;
    const ann = { identity: 'ann', sid: 'PA_ann', joinedAt: String(joined) };
    await webhook(h, events.participantJoined(room.livekitName, ann, { createdAt: joined })).expect(200);
    await settled(h);

    // About an earlier LiveKit room of the same name, or a bad clock: an hour before this room existed.
    const stale = events.roomFinished(room.livekitName, { createdAt: Math.floor(createdAt) - 3600 });
    await webhook(h, stale).expect(200);
    await settled(h);
    const [applied] = (await h.t.db.query(`SELECT processed_at FROM inbound_events WHERE event_id = $1`, [stale.id])) as {
      processed_at: Date | null;
    }[];
    expect(applied.processed_at).not.toBeNull();
    const live = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body;
    expect(live).toMatchObject({ status: 'active', ended_at: null, total_connection_minutes: 0, total_charged_cents: 0 });
    expect(live.participants).toEqual([expect.objectContaining({ participant_identity: 'ann', left_at: null, charged_cents: null })]);
    expect((await h.t.http().get('/v1/billing/credit').set(org.auth)).body.credit_cents).toBe(10_000);

    // The call goes on: Ann leaves after 4 min 50 s, then the room finishes; five started minutes.
    await webhook(h, events.participantLeft(room.livekitName, ann, { createdAt: joined + 290 })).expect(200);
    await webhook(h, events.roomFinished(room.livekitName, { createdAt: joined + 300 })).expect(200);
    await settled(h);
    const ended = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body;
    const fiveMinutes = 5 * h.t.config.rates.participantCentsPerMinute;
    expect(ended).toMatchObject({
      status: 'ended',
      ended_at: new Date((joined + 300) * 1000).toISOString(),
      total_connection_minutes: 5,
      total_charged_cents: fiveMinutes,
    });
    expect((await h.t.http().get('/v1/billing/credit').set(org.auth)).body.credit_cents).toBe(10_000 - fiveMinutes);
  });

  it('ends a room by a room_finished stamped in the whole second the room was created in', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const createdAt = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body.created_at as string;
    // LiveKit stamps events in whole seconds: 12:00:00 may report a finish at 12:00:00.700.
    await webhook(h, events.roomFinished(room.livekitName, { createdAt: Math.floor(Date.parse(createdAt) / 1000) })).expect(200);
    await settled(h);
    const ended = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body;
    expect(ended).toMatchObject({ status: 'ended', ended_at: createdAt });
  });

  it('ignores events of rooms it does not know', async () => {
    await webhook(h, events.participantJoined('someone-elses-room', 'x')).expect(200);
    await settled(h);
    const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM connections WHERE identity = 'x'`)) as { n: number }[];
    expect(n).toBe(0);
  });
});
