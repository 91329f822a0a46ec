import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

/** What a dashboard shows of now: the rooms live now, and how fast the credit burns. */
describe('live rooms and credit burn', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness({ RATE_PARTICIPANT_CENTS_PER_MINUTE: '3', RATE_TRANSLATOR_CENTS_PER_MINUTE: '6' });
  });
  afterAll(async () => h.close());

  it('filters the room list to the live or the ended rooms, newest first, and refuses another status', async () => {
    const org = await createOrganization(h.t);
    const waiting = await createRoom(h, org);
    const live = await createRoom(h, org);
    const over = await createRoom(h, org);
    const now = Math.floor(Date.now() / 1000);
    for (const room of [live, over]) {
      await webhook(h, events.participantJoined(room.livekitName, { identity: 'ann', sid: `PA_${room.id}`, joinedAt: String(now) })).expect(
        200,
      );
    }
    await webhook(h, events.roomFinished(over.livekitName, { createdAt: now + 60 })).expect(200);
    await settled(h);
    const ids = async (query: string) =>
      ((await h.t.http().get(`/v1/rooms${query}`).set(org.auth).expect(200)).body.items as { id: string; status: string }[]).map((r) => [
        r.id,
        r.status,
      ]);
    expect(await ids('?status=active')).toEqual([[live.id, 'active']]);
    expect(await ids('?status=ended')).toEqual([[over.id, 'ended']]);
    expect(await ids('')).toEqual([
      [over.id, 'ended'],
      [live.id, 'active'],
      [waiting.id, 'created'],
    ]);
    expect(await ids('?status=active&limit=1&offset=1')).toEqual([]);
    const refused = await h.t.http().get('/v1/rooms?status=created').set(org.auth);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['query', 'status'], type: 'enum' });
  });

  it('says what the open connections cost per minute and when the balance runs out at that rate', async () => {
    const org = await createOrganization(h.t, { creditCents: 900 });
    const idle = (await h.t.http().get('/v1/billing/burn').set(org.auth).expect(200)).body;
    expect(idle).toEqual({ balance_cents: 900, open_connections: 0, cents_per_minute: 0, runs_out_at: null });

    const room = await createRoom(h, org);
    await token(h, org, room.name, { identity: 'ann', languages: ['en'] }).expect(201);
    const now = Math.floor(Date.now() / 1000);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'ann', sid: 'PA_ann', joinedAt: String(now) })).expect(200);
    const agent = { identity: 'agent-1', sid: 'PA_agent', joinedAt: String(now), kind: 'AGENT' as const };
    await webhook(h, events.participantJoined(room.livekitName, agent)).expect(200);
    await settled(h);
    const before = Date.now();
    const burning = (await h.t.http().get('/v1/billing/burn').set(org.auth).expect(200)).body;
    expect(burning).toMatchObject({ balance_cents: 900, open_connections: 2, cents_per_minute: 9 });
    // 900 cents at 9 a minute: 100 minutes from now.
    const runsOut = Date.parse(burning.runs_out_at as string);
    expect(runsOut).toBeGreaterThanOrEqual(before + 100 * 60_000 - 1000);
    expect(runsOut).toBeLessThanOrEqual(Date.now() + 100 * 60_000);

    // Another organization's connections are not counted.
    const other = await createOrganization(h.t);
    expect((await h.t.http().get('/v1/billing/burn').set(other.auth).expect(200)).body.open_connections).toBe(0);

    await webhook(h, events.participantLeft(room.livekitName, agent, { createdAt: now + 120 })).expect(200);
    await settled(h);
    const after = (await h.t.http().get('/v1/billing/burn').set(org.auth).expect(200)).body;
    expect(after).toMatchObject({ balance_cents: 900 - 2 * 6, open_connections: 1, cents_per_minute: 3 });
  });
});
