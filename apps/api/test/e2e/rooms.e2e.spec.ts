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
    expect(res.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type])).toEqual([
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
