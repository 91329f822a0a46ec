import { createOrganization, createTeammate, type TestOrganization } from '../support/factories';
import { openStream, type OpenStream, type StreamMessage } from '../support/event-stream-client';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { seededRandom } from '../support/seeded-random';

type EventBody = { id: string; type: string; created_at: string; data: Record<string, unknown> };

/** The organization's event log as the database keeps it: cursors in commit order. */
async function logOf(h: RoomsHarness, org: TestOrganization): Promise<{ seq: string; id: string; type: string }[]> {
  return (await h.t.db.query(`SELECT seq::text AS seq, id, type FROM webhook_events e WHERE organization_id = $1 ORDER BY e.seq`, [
    org.organizationId,
  ])) as { seq: string; id: string; type: string }[];
}

/** A participant joins a new room (room.started, participant.joined) and, when asked, leaves it (participant.left). */
async function meeting(h: RoomsHarness, org: TestOrganization, identity: string, leave = false): Promise<string> {
  const room = await createRoom(h, org);
  await token(h, org, room.name, { identity, languages: ['en'] }).expect(201);
  const now = Math.floor(Date.now() / 1000);
  const participant = { identity, sid: `PA_${room.id.slice(0, 8)}_${identity}`, joinedAt: String(now - 30) };
  await webhook(h, events.participantJoined(room.livekitName, participant)).expect(200);
  if (leave) await webhook(h, events.participantLeft(room.livekitName, participant, { createdAt: now })).expect(200);
  return room.id;
}

const stream = (h: RoomsHarness, org: TestOrganization, query = '', headers: Record<string, string> = {}) =>
  openStream(h.t.server, `/v1/events/stream${query}`, { ...org.auth, ...headers });

const bodies = (messages: StreamMessage[]) => messages.filter((m) => m.event !== 'reset').map((m) => JSON.parse(m.data) as EventBody);

describe('events: the log and the live stream', () => {
  let h: RoomsHarness;
  const open: OpenStream[] = [];
  beforeAll(async () => {
    h = await startRoomsHarness({ EVENT_STREAMS_PER_ORGANIZATION: '3', EVENT_STREAM_HEARTBEAT_MS: '300' });
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(async () => h.close());
  const track = (s: OpenStream) => {
    open.push(s);
    return s;
  };

  it('keeps every event of an organization with no webhook endpoint, newest first, with participant events', async () => {
    const org = await createOrganization(h.t);
    const roomId = await meeting(h, org, 'ann', true);
    await settled(h);
    const page = (await h.t.http().get('/v1/events').set(org.auth).expect(200)).body as { items: EventBody[]; next_offset: number | null };
    const types = page.items.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['participant.left', 'participant.joined', 'room.started']);
    const left = page.items[0];
    expect(Object.keys(left).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(left.data).toEqual({
      room_id: roomId,
      room: expect.any(String),
      participant_identity: 'ann',
      kind: 'participant',
      languages: ['en'],
      joined_at: expect.any(String),
      left_at: expect.any(String),
      minutes: 1,
      charged_cents: expect.any(Number),
    });
    expect(page.items[1].data).toMatchObject({ participant_identity: 'ann', left_at: null, minutes: null, charged_cents: null });
    // Filters: by type, by room, since an instant; the page is the log's own order.
    const joined = (await h.t.http().get('/v1/events?type=participant.joined').set(org.auth).expect(200)).body.items as EventBody[];
    expect(joined.map((e) => e.id)).toEqual([page.items[1].id]);
    const other = await meeting(h, org, 'bob');
    await settled(h);
    const ofRoom = (await h.t.http().get(`/v1/events?room_id=${other}`).set(org.auth).expect(200)).body.items as EventBody[];
    expect(ofRoom.map((e) => e.type)).toEqual(['participant.joined', 'room.started']);
    const since = (
      await h.t
        .http()
        .get(`/v1/events?since=${encodeURIComponent(ofRoom[1].created_at)}`)
        .set(org.auth)
        .expect(200)
    ).body.items as EventBody[];
    expect(since.map((e) => e.id)).toEqual(ofRoom.map((e) => e.id));
    const log = await logOf(h, org);
    const all = (await h.t.http().get('/v1/events?limit=200').set(org.auth).expect(200)).body.items as EventBody[];
    expect(all.map((e) => e.id)).toEqual(log.map((e) => e.id).reverse());
    const bad = await h.t.http().get('/v1/events?type=room.exploded&since=yesterday').set(org.auth);
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((i: { loc: string[] }) => i.loc.join('.')).sort()).toEqual(['query.since', 'query.type']);
  });

  it('streams new events live, in commit order, with ids a reconnection resumes from, and a heartbeat', async () => {
    const org = await createOrganization(h.t);
    const s = track(await stream(h, org));
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(s.retries.length + 1).toBeGreaterThan(0);
    await meeting(h, org, 'ann');
    const received = await s.waitFor((m) => m.length >= 2);
    expect(received.map((m) => m.event)).toEqual(['room.started', 'participant.joined']);
    const log = await logOf(h, org);
    expect(received.map((m) => m.id)).toEqual(log.map((e) => e.seq));
    expect(bodies(received).map((b) => b.id)).toEqual(log.map((e) => e.id));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(s.comments.length).toBeGreaterThanOrEqual(1);
    expect(s.retries[0]).toBeGreaterThan(0);
  });

  it('replays after Last-Event-ID (header or query) then goes live; filters by type and room', async () => {
    const org = await createOrganization(h.t);
    const first = await meeting(h, org, 'ann', true);
    await meeting(h, org, 'bob');
    await settled(h);
    const log = await logOf(h, org);
    const after = log[1].seq;
    const resumed = track(await stream(h, org, '', { 'Last-Event-ID': after }));
    await resumed.waitFor((m) => m.length >= log.length - 2);
    expect(resumed.messages.map((m) => m.id)).toEqual(log.slice(2).map((e) => e.seq));
    const byQuery = track(await stream(h, org, `?last_event_id=${after}&types=participant.left,room.started&room_id=${first}`));
    await byQuery.waitFor((m) => m.length >= 1);
    expect(byQuery.messages.map((m) => m.event)).toEqual(['participant.left']);
    await meeting(h, org, 'cyd');
    await resumed.waitFor((m) => m.length >= log.length);
    const now = await logOf(h, org);
    expect(resumed.messages.map((m) => m.id)).toEqual(now.slice(2).map((e) => e.seq));
    const bad = await stream(h, org, '?types=room.started,nope', { 'Last-Event-ID': 'abc' });
    expect(bad.status).toBe(422);
  });

  it('starts a cursor past retention with event: reset, then every kept event', async () => {
    const org = await createOrganization(h.t);
    await meeting(h, org, 'ann');
    await settled(h);
    const [oldest, ...kept] = await logOf(h, org);
    await h.t.db.query(`UPDATE webhook_events SET created_at = now() - interval '31 days' WHERE seq = $1`, [oldest.seq]);
    const { EventLogService } = await import('../../src/modules/events/event-log.service');
    expect(await h.t.app.get(EventLogService).deleteExpired()).toBeGreaterThanOrEqual(1);
    const s = track(await stream(h, org, '', { 'Last-Event-ID': oldest.seq }));
    await s.waitFor((m) => m.length >= kept.length + 1);
    expect(s.messages[0].event).toBe('reset');
    expect(s.messages.slice(1).map((m) => m.id)).toEqual(kept.map((e) => e.seq));
  });

  it('loses and doubles nothing when the client disconnects at random points while events commit', async () => {
    const org = await createOrganization(h.t);
    const random = seededRandom(42);
    const received: string[] = [];
    let lastId: string | null = null;
    let producing = true;
    const producer = (async () => {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 24; i++) work.push(meeting(h, org, `p${i}`, i % 2 === 0));
      await Promise.all(work);
      await settled(h, 30_000);
      producing = false;
    })();
    let connections = 0;
    while (producing || received.length === 0 || (await logOf(h, org)).at(-1)?.seq !== lastId) {
      connections++;
      const s = await stream(h, org, '', lastId === null ? {} : { 'Last-Event-ID': lastId });
      expect(s.status).toBe(200);
      // Stay for a random few events (or a short while), then cut the connection.
      const stay = 1 + Math.floor(random() * 6);
      await s.waitFor((m) => m.length >= stay, 300 + Math.floor(random() * 300)).catch(() => undefined);
      s.close();
      // As EventSource does: the next connection resumes from the last id the stream named (even one with no event).
      for (const m of s.messages) received.push(m.id!);
      lastId = s.lastEventId() ?? lastId;
      if (connections > 400) throw new Error('too many reconnections');
    }
    await producer;
    const log = await logOf(h, org);
    expect(connections).toBeGreaterThan(3);
    expect(received).toEqual(log.map((e) => e.seq));
  }, 120_000);

  it('sends an organization only its own events, with two organizations interleaved', async () => {
    const a = await createOrganization(h.t);
    const b = await createOrganization(h.t);
    const sa = track(await stream(h, a));
    const sb = track(await stream(h, b));
    await Promise.all([meeting(h, a, 'ann'), meeting(h, b, 'bob'), meeting(h, a, 'cyd'), meeting(h, b, 'dan')]);
    await settled(h);
    const [logA, logB] = [await logOf(h, a), await logOf(h, b)];
    await sa.waitFor((m) => m.length >= logA.length);
    await sb.waitFor((m) => m.length >= logB.length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sa.messages.map((m) => m.id)).toEqual(logA.map((e) => e.seq));
    expect(sb.messages.map((m) => m.id)).toEqual(logB.map((e) => e.seq));
    // A cursor of the other organization replays nothing of it.
    const crossed = track(await stream(h, a, '', { 'Last-Event-ID': logB[0].seq }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(crossed.messages.every((m) => logA.some((e) => e.seq === m.id) || m.event === 'reset')).toBe(true);
  });

  it('opens a stream with a ticket once, as the caller who asked for it, within its minute', async () => {
    const org = await createOrganization(h.t);
    const other = await createOrganization(h.t);
    const issued = await h.t.http().post('/v1/events/stream-tickets').set(org.auth).send();
    expect(issued.status).toBe(201);
    expect(issued.body.ticket).toMatch(/^est_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(issued.body.expires_at) - Date.now()).toBeGreaterThan(50_000);
    const s = track(await openStream(h.t.server, `/v1/events/stream?ticket=${issued.body.ticket}`));
    expect(s.status).toBe(200);
    await Promise.all([meeting(h, org, 'ann'), meeting(h, other, 'bob')]);
    await settled(h);
    const log = await logOf(h, org);
    await s.waitFor((m) => m.length >= log.length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.messages.map((m) => m.id)).toEqual(log.map((e) => e.seq));

    const reused = await openStream(h.t.server, `/v1/events/stream?ticket=${issued.body.ticket}`);
    expect(reused.status).toBe(401);
    expect(JSON.parse(await reused.body()).detail).toMatch(/already used/);

    const late = (await h.t.http().post('/v1/events/stream-tickets').set(org.auth).send()).body.ticket as string;
    await h.t.db.query(`UPDATE event_stream_tickets SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
    const expired = await openStream(h.t.server, `/v1/events/stream?ticket=${late}`);
    expect(expired.status).toBe(401);
    expect(JSON.parse(await expired.body()).detail).toMatch(/expired at/);

    const forged = await openStream(h.t.server, `/v1/events/stream?ticket=est_${'A'.repeat(43)}`);
    expect(forged.status).toBe(401);
  });

  it("refuses a ticket whose caller lost access, and one that lacks events:read; another organization's never crosses over", async () => {
    const org = await createOrganization(h.t);
    const mate = await createTeammate(h.t, org, 'developer');
    const ticket = (await h.t.http().post('/v1/events/stream-tickets').set(mate.auth).send().expect(201)).body.ticket as string;
    await h.t.db.query(`DELETE FROM memberships WHERE user_id = $1`, [mate.userId]);
    const removed = await openStream(h.t.server, `/v1/events/stream?ticket=${ticket}`);
    expect(removed.status).toBe(401);
    expect(JSON.parse(await removed.body()).detail).toMatch(/no longer valid/);

    const scoped = await createTeammate(h.t, org, 'owner');
    await h.t.db.query(`UPDATE api_keys SET scopes = $1 WHERE created_by_user_id = $2`, [['rooms:read'], scoped.userId]);
    expect((await h.t.http().post('/v1/events/stream-tickets').set(scoped.auth).send()).status).toBe(403);

    // A ticket of organization B, sent with A's key: the key decides, and the stream is A's.
    const b = await createOrganization(h.t);
    const ofB = (await h.t.http().post('/v1/events/stream-tickets').set(b.auth).send().expect(201)).body.ticket as string;
    const s = track(await openStream(h.t.server, `/v1/events/stream?ticket=${ofB}`, org.auth));
    await meeting(h, b, 'bea');
    await meeting(h, org, 'ann');
    await settled(h);
    const log = await logOf(h, org);
    await s.waitFor((m) => m.length >= log.length);
    expect(s.messages.map((m) => m.id)).toEqual(log.map((e) => e.seq));
  });

  it('holds at most EVENT_STREAMS_PER_ORGANIZATION open streams: the next is 429 until one closes', async () => {
    const org = await createOrganization(h.t);
    const streams = [];
    for (let i = 0; i < 3; i++) streams.push(track(await stream(h, org)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await stream(h, org);
    expect(refused.status).toBe(429);
    expect(JSON.parse(await refused.body()).detail).toMatch(/EVENT_STREAMS_PER_ORGANIZATION/);
    expect((await stream(h, await createOrganization(h.t))).status).toBe(200);
    streams[0].close();
    let again: OpenStream | null = null;
    for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await stream(h, org);
      if (again.status === 200) track(again);
    }
    expect(again?.status).toBe(200);
  });
});

describe('events: a stream at shutdown', () => {
  it('ends every open stream with a retry hint when the API stops', async () => {
    const h = await startRoomsHarness();
    const org = await createOrganization(h.t);
    const s = await stream(h, org);
    expect(s.status).toBe(200);
    await s.waitFor(() => s.retries.length === 1);
    const retriesBefore = s.retries.length;
    await h.close();
    await s.ended;
    expect(s.retries.length).toBe(retriesBefore + 1);
  });
});
