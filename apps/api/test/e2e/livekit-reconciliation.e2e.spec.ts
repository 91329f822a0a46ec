import { LiveKitReconciliationService } from '../../src/modules/metering/livekit-reconciliation.service';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver';

interface RoomDetail {
  status: string;
  ended_at: string | null;
  total_connection_minutes: number;
  total_charged_cents: number;
  participants: {
    participant_identity: string;
    participant_kind: string | null;
    languages: string[] | null;
    joined_at: string;
    left_at: string | null;
    connection_minutes: number | null;
    charged_cents: number | null;
  }[];
}

const MINUTE = 60_000;
/** LiveKit's timeout of the API's calls here: a listing slower than this got no answer. */
const LIVEKIT_TIMEOUT_MS = 500;
const SETTLE_MS = 300;

/**
 * Reconciliation with LiveKit through the API, against the LiveKit double's state: what LiveKit no
 * longer lists ends where it was last listed, what it lists unknown opens, and a LiveKit that does
 * not answer changes nothing.
 */
describe('reconciliation with LiveKit', () => {
  let h: RoomsHarness;
  let receiver: WebhookReceiver;
  let reconcile: () => Promise<boolean>;

  beforeAll(async () => {
    h = await startRoomsHarness({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      ROOM_SETTLE_MS: String(SETTLE_MS),
      LIVEKIT_TIMEOUT_MS: String(LIVEKIT_TIMEOUT_MS),
    });
    receiver = await startWebhookReceiver();
    const service = h.t.app.get(LiveKitReconciliationService);
    reconcile = () => service.run();
  });
  afterAll(async () => {
    await receiver.close();
    await h.close();
  });

  const detail = async (org: TestOrganization, roomId: string) =>
    (await h.t.http().get(`/v1/rooms/${roomId}`).set(org.auth).expect(200)).body as RoomDetail;
  const balance = async (org: TestOrganization) =>
    ((await h.t.http().get('/v1/billing/credit').set(org.auth).expect(200)).body as { credit_cents: number }).credit_cents;
  const minutesBetween = (from: number, to: number) => Math.max(1, Math.ceil((to - from) / MINUTE));
  const seenAt = async (table: 'rooms' | 'connections', id: string) =>
    (
      (await h.t.db.query(`SELECT livekit_seen_at FROM ${table} WHERE ${table === 'rooms' ? 'id' : 'identity'} = $1`, [id])) as {
        livekit_seen_at: Date | null;
      }[]
    )[0].livekit_seen_at;

  /** The first event of this type about the room the customer's endpoint received, once it has. */
  async function received(type: string, roomId: string) {
    const about = (x: ReceivedWebhook) => x.event.type === type && x.event.data.id === roomId;
    return (await receiver.waitFor((all) => all.some(about))).find(about)!;
  }

  /** A room with people who joined LiveKit (the double) `minutesAgo` ago, their joins delivered. */
  async function roomWith(org: TestOrganization, people: { identity: string; minutesAgo: number; delivered?: boolean }[]) {
    const room = await createRoom(h, org);
    for (const { identity } of people) await token(h, org, room.name, { identity, languages: ['en'] }).expect(201);
    for (const { identity, minutesAgo, delivered = true } of people) {
      const joinedAtMs = Date.now() - minutesAgo * MINUTE - 30_000;
      const participant = h.livekit.addParticipant(room.livekitName, { identity, joinedAtMs });
      if (delivered) await webhook(h, events.participantJoined(room.livekitName, participant)).expect(200);
    }
    await settled(h);
    return room;
  }

  it('ends a connection LiveKit no longer lists where it was last listed, and bills it to there', async () => {
    const org = await createOrganization(h.t);
    const room = await roomWith(org, [
      { identity: `ana-${room0()}`, minutesAgo: 3 },
      { identity: `ben-${room0()}`, minutesAgo: 3 },
    ]);
    const [ana, ben] = h.livekit.participants(room.livekitName);
    const before = Date.now();
    expect(await reconcile()).toBe(true);
    const lastSeen = (await seenAt('connections', ana.identity))!.getTime();
    expect(lastSeen).toBeGreaterThanOrEqual(before);
    // Ana leaves; LiveKit's participant_left never reaches the API.
    h.livekit.removeParticipant(room.livekitName, ana.identity);
    const credit = await balance(org);
    expect(await reconcile()).toBe(true);

    const after = await detail(org, room.id);
    expect(after.status).toBe('active');
    const byIdentity = new Map(after.participants.map((p) => [p.participant_identity, p]));
    const joinedAt = Number(ana.joinedAtMs);
    expect(Date.parse(byIdentity.get(ana.identity)!.left_at!)).toBe(lastSeen);
    expect(byIdentity.get(ana.identity)!.connection_minutes).toBe(minutesBetween(joinedAt, lastSeen));
    expect(byIdentity.get(ben.identity)!.left_at).toBeNull();
    expect(after.total_connection_minutes).toBe(minutesBetween(joinedAt, lastSeen));
    expect(await balance(org)).toBe(credit - after.total_charged_cents);

    // Her leave arrives after all, stamped earlier than where she was last seen: the earliest end wins.
    const leftAt = Math.floor(joinedAt / 1000) + 61;
    await webhook(h, events.participantLeft(room.livekitName, ana, { createdAt: leftAt })).expect(200);
    await settled(h);
    const corrected = await detail(org, room.id);
    expect(corrected.participants.find((p) => p.participant_identity === ana.identity)!.connection_minutes).toBe(2);
  });

  it('ends a room LiveKit no longer has at its last sight, bills its open connections and sends room.ended once', async () => {
    const org = await createOrganization(h.t);
    await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: receiver.url, events: ['room.ended'] })
      .expect(201);
    const room = await roomWith(org, [
      { identity: `cy-${room0()}`, minutesAgo: 2 },
      { identity: `di-${room0()}`, minutesAgo: 5 },
    ]);
    // In the order the room shows them: by join.
    const people = h.livekit.participants(room.livekitName).sort((a, b) => Number(a.joinedAtMs) - Number(b.joinedAtMs));
    expect(await reconcile()).toBe(true);
    const roomSeen = (await seenAt('rooms', room.id))!.getTime();
    const seen = await Promise.all(people.map(async (p) => (await seenAt('connections', p.identity))!.getTime()));
    // The LiveKit node dies: the room is gone and nobody says so.
    h.livekit.removeRoom(room.livekitName);
    expect(await reconcile()).toBe(true);

    const ended = await detail(org, room.id);
    expect(ended.status).toBe('ended');
    expect(Date.parse(ended.ended_at!)).toBe(roomSeen);
    const expected = people.map((p, i) => minutesBetween(Number(p.joinedAtMs), Math.min(seen[i], roomSeen)));
    expect(ended.participants.map((p) => p.connection_minutes)).toEqual(expected);
    expect(ended.total_connection_minutes).toBe(expected.reduce((a, b) => a + b, 0));

    const sent = await received('room.ended', room.id);
    expect(sent.event.data).toEqual(await detail(org, room.id));
    // Another run, and LiveKit's own room_finished arriving late, change nothing and send nothing more.
    expect(await reconcile()).toBe(true);
    await webhook(h, events.roomFinished(room.livekitName)).expect(200);
    await settled(h);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 1500));
    expect(receiver.received.filter((x) => x.event.type === 'room.ended' && x.event.data.id === room.id)).toHaveLength(1);
    expect(await detail(org, room.id)).toEqual(ended);
  });

  it('opens the connection of a participant LiveKit lists whose join never arrived, as its token says', async () => {
    const org = await createOrganization(h.t);
    const eve = `eve-${room0()}`;
    const room = await roomWith(org, [{ identity: eve, minutesAgo: 4, delivered: false }]);
    const agent = h.livekit.addParticipant(room.livekitName, {
      identity: 'agent-translator',
      kind: 'AGENT',
      joinedAtMs: Date.now() - 60_000,
    });
    const [listed] = h.livekit.participants(room.livekitName);
    expect((await detail(org, room.id)).status).toBe('created');
    expect(await reconcile()).toBe(true);

    const opened = await detail(org, room.id);
    expect(opened.status).toBe('active');
    const byIdentity = new Map(opened.participants.map((p) => [p.participant_identity, p]));
    expect(byIdentity.get(eve)).toMatchObject({ participant_kind: 'member', languages: ['en'], left_at: null });
    expect(Date.parse(byIdentity.get(eve)!.joined_at)).toBe(Number(listed.joinedAtMs));
    expect(byIdentity.get(agent.identity)).toMatchObject({ participant_kind: 'translator', left_at: null });

    // She leaves and her leave arrives: billed from LiveKit's join time, and never reopened by a listing.
    await webhook(h, events.participantLeft(room.livekitName, listed)).expect(200);
    await settled(h);
    expect(await reconcile()).toBe(true);
    const after = await detail(org, room.id);
    const eveAfter = after.participants.filter((p) => p.participant_identity === eve);
    expect(eveAfter).toHaveLength(1);
    expect(eveAfter[0].connection_minutes).toBe(minutesBetween(Number(listed.joinedAtMs), Date.parse(eveAfter[0].left_at!)));
  });

  it('changes nothing while LiveKit answers errors or does not answer, and catches up once it does', async () => {
    const org = await createOrganization(h.t);
    const fay = `fay-${room0()}`;
    const room = await roomWith(org, [{ identity: fay, minutesAgo: 1 }]);
    expect(await reconcile()).toBe(true);
    // She ends with the room, where it was last seen (just before she was).
    const lastSeen = (await seenAt('rooms', room.id))!.getTime();
    expect((await seenAt('connections', fay))!.getTime()).toBeGreaterThanOrEqual(lastSeen);
    h.livekit.removeRoom(room.livekitName);
    const before = await detail(org, room.id);

    h.livekit.failNext('ListRooms', 1, 503);
    expect(await reconcile()).toBe(false);
    h.livekit.delayNext('ListRooms', 1, LIVEKIT_TIMEOUT_MS * 4);
    expect(await reconcile()).toBe(false);
    expect(await detail(org, room.id)).toEqual(before);

    expect(await reconcile()).toBe(true);
    const after = await detail(org, room.id);
    expect(after.status).toBe('ended');
    expect(Date.parse(after.participants[0].left_at!)).toBe(lastSeen);
  });

  it('leaves a room alone whose participants LiveKit would not list, and reconciles the others', async () => {
    const org = await createOrganization(h.t);
    const gus = `gus-${room0()}`;
    const room = await roomWith(org, [{ identity: gus, minutesAgo: 1 }]);
    const gone = await roomWith(org, [{ identity: `ida-${room0()}`, minutesAgo: 1 }]);
    h.livekit.removeParticipant(room.livekitName, gus);
    h.livekit.removeRoom(gone.livekitName);
    h.livekit.failNext('ListParticipants', 10_000, 500);
    try {
      expect(await reconcile()).toBe(true);
    } finally {
      h.livekit.clearFaults();
    }
    expect((await detail(org, room.id)).participants[0].left_at).toBeNull();
    expect((await detail(org, gone.id)).status).toBe('ended');
    expect(await reconcile()).toBe(true);
    expect((await detail(org, room.id)).participants[0].left_at).not.toBeNull();
  });

  it("tells the customer with room.usage_corrected when a settled room's totals change, with the previous totals", async () => {
    const org = await createOrganization(h.t);
    await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: receiver.url, events: ['room.ended', 'room.usage_corrected'] })
      .expect(201);
    const hal = `hal-${room0()}`;
    const room = await roomWith(org, [{ identity: hal, minutesAgo: 10 }]);
    const [listed] = h.livekit.participants(room.livekitName);
    h.livekit.removeRoom(room.livekitName);
    expect(await reconcile()).toBe(true);
    const ended = await received('room.ended', room.id);
    const endedData = ended.event.data as unknown as RoomDetail;
    expect(endedData.total_connection_minutes).toBe(1);

    // A join LiveKit reports late, of someone who was in the room since before it ended: their minutes are
    // added after room.ended was sent.
    const late = { identity: `late-${room0()}`, sid: 'PA_late', joinedAt: String(Math.floor(Number(listed.joinedAtMs) / 1000)) };
    await webhook(h, events.participantJoined(room.livekitName, late)).expect(200);
    await settled(h);
    const correction = await received('room.usage_corrected', room.id);
    const now = await detail(org, room.id);
    expect(now.total_connection_minutes).toBeGreaterThan(1);
    expect(correction.event.data).toEqual({
      ...now,
      previous_totals: { total_connection_minutes: endedData.total_connection_minutes, total_charged_cents: endedData.total_charged_cents },
    });
    expect(receiver.received.filter((x) => x.event.type === 'room.usage_corrected' && x.event.data.id === room.id)).toHaveLength(1);
  });
});

let counter = 0;
/** A distinct suffix per person, so identities name one connection across the whole spec. */
function room0(): string {
  counter += 1;
  return `${process.pid}-${counter}`;
}

describe('reconciliation with LiveKit, on its own schedule', () => {
  const TOKEN = 'metrics-token-for-reconciliation';
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness({ LIVEKIT_RECONCILE_SECONDS: '5', METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await h.close();
  });

  it('runs every LIVEKIT_RECONCILE_SECONDS by itself, ends a room LiveKit lost, and counts it in the metrics', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    await token(h, org, room.name, { identity: 'jo', languages: ['en'] }).expect(201);
    const jo = h.livekit.addParticipant(room.livekitName, { identity: 'jo', joinedAtMs: Date.now() - 90_000 });
    await webhook(h, events.participantJoined(room.livekitName, jo)).expect(200);
    await settled(h);
    h.livekit.removeRoom(room.livekitName);

    // Within two periods (and a little for the run itself), without anyone asking.
    const deadline = Date.now() + 2 * 5_000 + 3_000;
    let status = 'active';
    while (status !== 'ended' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = ((await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200)).body as { status: string }).status;
    }
    expect(status).toBe('ended');
    expect(h.livekit.callsOf('ListRooms').length).toBeGreaterThanOrEqual(1);

    const metrics = (await h.t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
    expect(metrics).toMatch(/livekit_reconcile_runs_total\{outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/livekit_reconcile_changes_total\{change="room_ended"\} 1\b/);
    expect(metrics).toMatch(/livekit_reconcile_changes_total\{change="connection_ended"\} 1\b/);
    expect(metrics).toMatch(/periodic_job_runs_total\{job="livekit.reconcile",outcome="ok"\} [1-9]/);
  });
});
