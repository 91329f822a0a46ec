import { issueKinds } from '../support/issue-kinds';
import { PAGE_QUERY_REJECTIONS } from '../support/page-query-rejections';
import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

describe('rooms', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  it('creates a room provisioned on LiveKit, then shows it in the list and detail', async () => {
    const org = await createOrganization(h.t);
    const res = await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'standup' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), room: 'standup', url: h.t.config.livekit.url, streaming_mode: null });
    const calls = h.livekit.callsOf('CreateRoom');
    const created = calls[calls.length - 1].body as { name: string; emptyTimeout: number; departureTimeout: number };
    expect(created.name).not.toBe('standup');
    expect(created.name).toContain(org.organizationId);
    expect(created.emptyTimeout).toBe(2592000);
    expect(created.departureTimeout).toBe(300);

    const detail = await h.t.http().get(`/v1/rooms/${res.body.id}`).set(org.auth);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      id: res.body.id,
      name: 'standup',
      sid: expect.stringMatching(/^RM_/),
      status: 'created',
      streaming_mode: null,
      started_at: null,
      ended_at: null,
      total_connection_minutes: 0,
      total_charged_cents: 0,
      created_at: expect.any(String),
      created_by: org.email,
      participants: [],
    });
    const list = await h.t.http().get('/v1/rooms').set(org.auth);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toEqual(Object.fromEntries(Object.entries(detail.body).filter(([k]) => k !== 'participants')));
  });

  it('generates a unique name when none is sent, and keeps a mode sent at creation', async () => {
    const org = await createOrganization(h.t);
    const a = await h.t.http().post('/v1/rooms').set(org.auth).send({ streaming_mode: 'dual' });
    const b = await h.t.http().post('/v1/rooms').set(org.auth).send({});
    expect(a.status).toBe(201);
    expect(a.body.streaming_mode).toBe('dual');
    expect(a.body.room).not.toBe(b.body.room);
    expect(a.body.room).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it('answers 503 and creates nothing when LiveKit cannot be reached', async () => {
    const org = await createOrganization(h.t);
    h.livekit.failNext('CreateRoom', 1, 503);
    const res = await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'flaky' });
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/unavailable/);
    expect(res.headers['retry-after']).toBe('5');
    expect((await h.t.http().get('/v1/rooms').set(org.auth)).body.items).toEqual([]);
    expect((await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'flaky' })).status).toBe(201);
  });

  it('refuses a second live room with the same name under concurrency, frees the name once ended, and lets another organization use it', async () => {
    const org = await createOrganization(h.t);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'daily' })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)?.body.detail).toEqual(expect.any(String));
    const winner = answers.find((a) => a.status === 201)!;

    const other = await createOrganization(h.t);
    expect((await h.t.http().post('/v1/rooms').set(other.auth).send({ room_name: 'daily' })).status).toBe(201);

    expect((await h.t.http().delete(`/v1/rooms/${winner.body.id}`).set(org.auth)).status).toBe(204);
    expect((await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'daily' })).status).toBe(201);
  });

  it('ends a room: LiveKit room deleted, status ended, and ending again is a no-op', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    expect((await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth)).status).toBe(204);
    expect(h.livekit.callsOf('DeleteRoom').map((c) => (c.body as { room: string }).room)).toContain(room.livekitName);
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.status).toBe('ended');
    expect(detail.body.ended_at).not.toBeNull();
    const deletes = h.livekit.callsOf('DeleteRoom').length;
    expect((await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth)).status).toBe(204);
    expect(h.livekit.callsOf('DeleteRoom')).toHaveLength(deletes);
  });

  it('answers 503 and changes nothing when LiveKit cannot delete the room, then ends it once LiveKit is back', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org, { room_name: 'sticky' });
    await token(h, org, room.name, { languages: ['en'], identity: 'alice' }).expect(201);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'alice' })).expect(200);
    await settled(h);
    const before = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(before.body).toMatchObject({ status: 'active', ended_at: null });
    expect(before.body.participants).toHaveLength(1);

    h.livekit.failNext('DeleteRoom', 1, 503);
    const failed = await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth);
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ detail: expect.stringMatching(/unavailable/) });
    const after = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    expect(after.body.participants[0].left_at).toBeNull();
    const clash = await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'sticky' });
    expect(clash.status).toBe(409);

    expect((await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth)).status).toBe(204);
    const ended = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(ended.body.status).toBe('ended');
    expect(ended.body.ended_at).not.toBeNull();
    expect(ended.body.participants[0].left_at).not.toBeNull();
    expect(h.livekit.room(room.livekitName)).toBeUndefined();
    expect((await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'sticky' })).status).toBe(201);
  });

  it('counts a room LiveKit no longer knows as deleted', async () => {
    const org = await createOrganization(h.t);
    const gone = await createRoom(h, org);
    expect(h.livekit.removeRoom(gone.livekitName)).toBe(true);
    expect((await h.t.http().delete(`/v1/rooms/${gone.id}`).set(org.auth)).status).toBe(204);
    const lastDelete = h.livekit.callsOf('DeleteRoom').slice(-1)[0];
    expect(lastDelete).toMatchObject({ body: { room: gone.livekitName }, status: 404 });
    const detail = await h.t.http().get(`/v1/rooms/${gone.id}`).set(org.auth);
    expect(detail.body.status).toBe('ended');
    expect(detail.body.ended_at).not.toBeNull();

    const answeredNotFound = await createRoom(h, org);
    h.livekit.failNext('DeleteRoom', 1, 404);
    expect((await h.t.http().delete(`/v1/rooms/${answeredNotFound.id}`).set(org.auth)).status).toBe(204);
    expect((await h.t.http().get(`/v1/rooms/${answeredNotFound.id}`).set(org.auth)).body.status).toBe('ended');
  });

  it('lists newest first by created_at then id, and pages never skip or repeat', async () => {
    const org = await createOrganization(h.t);
    const rooms = [];
    for (let i = 0; i < 5; i++) rooms.push(await createRoom(h, org));
    const createdAt = [
      '2026-03-03T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ];
    for (const [i, room] of rooms.entries()) {
      await h.t.db.query(`UPDATE rooms SET created_at = $2 WHERE id = $1`, [room.id, createdAt[i]]);
    }
    const expected = rooms
      .map((room, i) => ({ id: room.id, created_at: createdAt[i] }))
      .sort((a, b) => (a.created_at !== b.created_at ? b.created_at.localeCompare(a.created_at) : b.id.localeCompare(a.id)));

    const paged: { id: string; created_at: string }[] = [];
    const nextOffsets: (number | null)[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: {
        status: number;
        body: { limit: number; offset: number; items: { id: string; created_at: string }[]; next_offset: number | null };
      } = await h.t.http().get(`/v1/rooms?limit=2&offset=${offset}`).set(org.auth);
      expect(page.status).toBe(200);
      expect(page.body.limit).toBe(2);
      expect(page.body.offset).toBe(offset);
      paged.push(...page.body.items.map(({ id, created_at }) => ({ id, created_at })));
      nextOffsets.push(page.body.next_offset);
      offset = page.body.next_offset;
    }
    expect(nextOffsets).toEqual([2, 4, null]);
    expect(paged).toEqual(expected);
    const all = await h.t.http().get('/v1/rooms?limit=200').set(org.auth);
    expect(all.body.items.map((r: { id: string }) => r.id)).toEqual(expected.map((r) => r.id));
    expect(all.body).toMatchObject({ limit: 200, offset: 0, next_offset: null });
  });

  it.each(PAGE_QUERY_REJECTIONS)('rejects the room list query ?%s with every violated field listed', async (query, detail) => {
    const org = await createOrganization(h.t);
    const res = await h.t.http().get(`/v1/rooms?${query}`).set(org.auth);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail });
  });

  it('accepts the room list bounds limit=1 and limit=200', async () => {
    const org = await createOrganization(h.t);
    const a = await createRoom(h, org);
    const b = await createRoom(h, org);
    await h.t.db.query(`UPDATE rooms SET created_at = created_at - interval '1 minute' WHERE id = $1`, [a.id]);
    const first = await h.t.http().get('/v1/rooms?limit=1&offset=0').set(org.auth);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ limit: 1, offset: 0, next_offset: 1 });
    expect(first.body.items.map((r: { id: string }) => r.id)).toEqual([b.id]);
    const last = await h.t.http().get('/v1/rooms?limit=1&offset=1').set(org.auth);
    expect(last.body).toMatchObject({ limit: 1, offset: 1, next_offset: null });
    expect(last.body.items.map((r: { id: string }) => r.id)).toEqual([a.id]);
    const max = await h.t.http().get('/v1/rooms?limit=200').set(org.auth);
    expect(max.status).toBe(200);
    expect(max.body).toMatchObject({ limit: 200, offset: 0, next_offset: null });
    expect(max.body.items).toHaveLength(2);
  });

  it('takes a room id written without hyphens or in capitals', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    for (const written of [room.id.replace(/-/g, ''), room.id.toUpperCase(), room.id.replace(/-/g, '').toUpperCase()]) {
      const res = await h.t.http().get(`/v1/rooms/${written}`).set(org.auth);
      expect({ written, status: res.status, id: res.body.id }).toEqual({ written, status: 200, id: room.id });
    }
    const tooShort = await h.t
      .http()
      .get(`/v1/rooms/${room.id.replace(/-/g, '').slice(1)}`)
      .set(org.auth);
    expect(tooShort.status).toBe(422);
    expect(tooShort.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'room_id'], type: 'uuid_parsing' })]);
  });

  it("treats another organization's room exactly like a missing one", async () => {
    const owner = await createOrganization(h.t);
    const stranger = await createOrganization(h.t);
    const room = await createRoom(h, owner, { room_name: 'private' });
    const missing = await h.t.http().get('/v1/rooms/00000000-0000-4000-8000-000000000000').set(stranger.auth);
    const foreign = await h.t.http().get(`/v1/rooms/${room.id}`).set(stranger.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await h.t.http().delete(`/v1/rooms/${room.id}`).set(stranger.auth)).status).toBe(404);
    expect((await token(h, stranger, 'private', { languages: ['en'] })).status).toBe(404);
    expect(
      (await h.t.http().post(`/v1/rooms/${room.id}/invites`).set(stranger.auth).send({ expires_in_seconds: 60, max_uses: 1 })).status,
    ).toBe(404);
    expect((await h.t.http().get('/v1/rooms').set(stranger.auth)).body.items).toEqual([]);
    expect((await h.t.http().get(`/v1/rooms/${room.id}`).set(owner.auth)).body.status).toBe('created');
  });

  it('refuses room creation while the balance is at or below zero', async () => {
    const broke = await createOrganization(h.t, { creditCents: 0 });
    const res = await h.t.http().post('/v1/rooms').set(broke.auth).send({});
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('validates the body', async () => {
    const org = await createOrganization(h.t);
    const res = await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'has space', streaming_mode: 'stereo' });
    expect(res.status).toBe(422);
    expect(issueKinds(res)).toEqual([
      ['body.room_name', 'string_pattern_mismatch'],
      ['body.streaming_mode', 'enum'],
    ]);
    const badId = await h.t.http().get('/v1/rooms/123').set(org.auth);
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0]).toMatchObject({ loc: ['path', 'room_id'], type: 'uuid_parsing' });
  });

  it('records connections from webhooks, and ends them with the room', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const alice = await token(h, org, room.name, { languages: ['en'], identity: 'alice' });
    expect(alice.status).toBe(201);
    const t0 = Math.floor(Date.now() / 1000) - 600;
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'alice', joinedAt: String(t0) }, { createdAt: t0 })).expect(
      200,
    );
    await settled(h);
    let detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.status).toBe('active');
    expect(detail.body.started_at).toBe(new Date(t0 * 1000).toISOString());
    expect(detail.body.participants).toEqual([
      {
        id: expect.any(Number),
        participant_identity: 'alice',
        participant_kind: 'member',
        languages: ['en'],
        joined_at: new Date(t0 * 1000).toISOString(),
        left_at: null,
        connection_minutes: null,
        charged_cents: null,
      },
    ]);
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
    detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(detail.body.participants[0].left_at).not.toBeNull();
    expect(detail.body.participants[0].connection_minutes).toBeGreaterThanOrEqual(10);
  });
});

describe('rooms against a LiveKit that does not answer', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness({ LIVEKIT_TIMEOUT_MS: '1500' });
  });
  afterAll(async () => h.close());

  it('answers 503 with Retry-After once the LiveKit timeout passes, and creates no room', async () => {
    const org = await createOrganization(h.t);
    h.livekit.delayNext('CreateRoom', 1, 4000);
    const res = await h.t.http().post('/v1/rooms').set(org.auth).send({ room_name: 'hung' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: expect.stringMatching(/realtime service is unavailable/) });
    expect(res.headers['retry-after']).toBe('5');
    expect((await h.t.http().get('/v1/rooms').set(org.auth)).body.items).toEqual([]);
  });

  it('holds no database connection while LiveKit is creating rooms', async () => {
    const org = await createOrganization(h.t);
    h.livekit.clearCalls();
    h.livekit.delayNext('CreateRoom', 5, 1000);
    const creations = Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        h.t
          .http()
          .post('/v1/rooms')
          .set(org.auth)
          .send({ room_name: `r${i}` }),
      ),
    );
    while (h.livekit.callsOf('CreateRoom').length < 5) await new Promise((resolve) => setTimeout(resolve, 10));
    // Every creation is waiting for LiveKit now: none of them has a transaction open.
    const [{ n }] = (await h.t.db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    )) as { n: number }[];
    expect(n).toBe(0);
    expect((await creations).map((res) => res.status)).toEqual([201, 201, 201, 201, 201]);
  });
});
