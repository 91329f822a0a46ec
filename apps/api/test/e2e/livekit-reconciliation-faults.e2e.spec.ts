import { LiveKitReconciliationService } from '../../src/modules/metering/livekit-reconciliation.service';
import { createOrganization, type TestOrganization } from '../support/factories';
import type { LiveKitCall, ParticipantInfoJson } from '../support/livekit-double';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/** The test's reconciliation period: runs at T0 + k × PERIOD_MS. */
const PERIOD_MS = 3_000;
const MINUTE = 60_000;
const LIVEKIT_TIMEOUT_MS = 400;
const RATE = { participant: 3, translator: 6 };
const CREDIT = 1_000_000;

/** How a room's call ends, as LiveKit knows it. */
type Fate = 'webhooks-lost' | 'node-died' | 'webhooks-delivered';

interface Person {
  identity: string;
  info: ParticipantInfoJson;
  /** Index into the double's calls at the moment LiveKit saw them leave (null: still there, or left with the room). */
  leftAtCall: number | null;
  /** When they truly left (ms), or when their room truly ended. */
  trueEnd: number | null;
  /** LiveKit's participant_left time (s), when it was delivered. */
  deliveredLeave: number | null;
  joinDelivered: boolean;
}

interface Call {
  id: string;
  name: string;
  livekitName: string;
  fate: Fate;
  people: Person[];
  removedAtCall: number | null;
  trueEnd: number | null;
  deliveredFinish: number | null;
}

interface RoomDetail {
  status: string;
  ended_at: string | null;
  total_connection_minutes: number;
  total_charged_cents: number;
  participants: { participant_identity: string; left_at: string | null; connection_minutes: number | null; charged_cents: number | null }[];
}

/**
 * The fault run of reconciliation: 20 rooms whose end webhooks LiveKit gave up on, 10 rooms on a
 * LiveKit node that died, 10 participants whose `participant_joined` never arrived, and LiveKit
 * unreachable (an error, then no answer in time) for two periods in the middle. Every connection must
 * end up billed between its true end minus one period and its true end, exactly as the metering
 * rule gives for the times LiveKit answered (the oracle reads them from the double's call log), each
 * room ended with one `room.ended`, nothing ended while LiveKit could not be asked, balance = ledger.
 */
describe('reconciliation through lost webhooks, a dead LiveKit node and a LiveKit outage', () => {
  let h: RoomsHarness;
  let receiver: WebhookReceiver;
  let org: TestOrganization;
  let reconcile: () => Promise<boolean>;
  /** Joins are placed against this time; runs fall on it plus whole periods. */
  let ref = 0;
  let t0 = 0;
  const calls: Call[] = [];

  beforeAll(async () => {
    h = await startRoomsHarness({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      ROOM_SETTLE_MS: '200',
      LIVEKIT_TIMEOUT_MS: String(LIVEKIT_TIMEOUT_MS),
      RATE_PARTICIPANT_CENTS_PER_MINUTE: String(RATE.participant),
      RATE_TRANSLATOR_CENTS_PER_MINUTE: String(RATE.translator),
    });
    receiver = await startWebhookReceiver();
    const service = h.t.app.get(LiveKitReconciliationService);
    reconcile = () => service.run();
  });
  afterAll(async () => {
    await receiver.close();
    await h.close();
  });

  /**
   * Waits for the next period's time (aligned, so that no run falls near a minute boundary of any join),
   * then runs: the k-th run of the test. A slot already past when the test gets there (a slow machine
   * took longer than a period between two runs) is skipped, so the runs stay on the grid; what is
   * checked depends on when LiveKit answered, not on which slot.
   */
  let slot = 0;
  async function runAtPeriod(k: number): Promise<boolean> {
    if (k === 0) t0 = Math.ceil((Date.now() + 200 - ref) / PERIOD_MS) * PERIOD_MS + ref;
    slot = k === 0 ? 0 : slot + 1;
    while (t0 + slot * PERIOD_MS < Date.now() + 20) slot += 1;
    await new Promise((resolve) => setTimeout(resolve, t0 + slot * PERIOD_MS - Date.now()));
    return reconcile();
  }

  const detail = async (roomId: string) => (await h.t.http().get(`/v1/rooms/${roomId}`).set(org.auth).expect(200)).body as RoomDetail;

  async function leaveWithWebhook(call: Call, person: Person): Promise<void> {
    person.leftAtCall = h.livekit.calls.length;
    person.trueEnd = Date.now();
    const info = h.livekit.removeParticipant(call.livekitName, person.identity)!;
    person.deliveredLeave = Math.floor(person.trueEnd / 1000);
    await webhook(h, events.participantLeft(call.livekitName, info, { createdAt: person.deliveredLeave })).expect(200);
  }

  /** The call ends in LiveKit, and LiveKit tells what its fate lets it tell. */
  async function end(call: Call): Promise<void> {
    if (call.fate === 'webhooks-delivered') {
      for (const person of call.people) await leaveWithWebhook(call, person);
      call.deliveredFinish = Math.floor(Date.now() / 1000);
      call.removedAtCall = h.livekit.calls.length;
      call.trueEnd = Date.now();
      h.livekit.removeRoom(call.livekitName);
      await webhook(h, events.roomFinished(call.livekitName, { createdAt: call.deliveredFinish })).expect(200);
      return;
    }
    if (call.fate === 'webhooks-lost') {
      // Everyone leaves, then the room closes; LiveKit's webhooks for all of it are lost.
      for (const person of call.people.filter((p) => p.leftAtCall === null)) {
        person.leftAtCall = h.livekit.calls.length;
        person.trueEnd = Date.now();
        h.livekit.removeParticipant(call.livekitName, person.identity);
      }
    }
    call.removedAtCall = h.livekit.calls.length;
    call.trueEnd = Date.now();
    h.livekit.removeRoom(call.livekitName);
  }

  it('bills every connection as the rule gives for what LiveKit answered, and ends every room once', async () => {
    org = await createOrganization(h.t, { creditCents: CREDIT });
    await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: receiver.url, events: ['room.ended'] })
      .expect(201);
    // Runs fall on `ref` plus whole periods (3 s); joins 59 s plus whole minutes before `ref`, so every
    // minute boundary of every connection falls a second or more away from any run.
    ref = Math.floor(Date.now() / PERIOD_MS) * PERIOD_MS;
    const fates: Fate[] = [
      ...Array<Fate>(20).fill('webhooks-lost'),
      ...Array<Fate>(10).fill('node-died'),
      ...Array<Fate>(10).fill('webhooks-delivered'),
    ];
    for (const [i, fate] of fates.entries()) {
      const room = await createRoom(h, org);
      const call: Call = { ...room, fate, people: [], removedAtCall: null, trueEnd: null, deliveredFinish: null };
      // Two people, and in the last ten rooms a third whose participant_joined never arrives.
      const count = i >= 30 ? 3 : 2;
      for (let p = 0; p < count; p++) {
        const identity = `p${i}-${p}`;
        await token(h, org, room.name, { identity, languages: [p % 2 === 0 ? 'en' : 'es'] }).expect(201);
        const joinedAtMs = ref - 59_000 - ((i + p) % 7) * MINUTE;
        const info = h.livekit.addParticipant(room.livekitName, { identity, sid: `PA_${i}_${p}`, joinedAtMs });
        const joinDelivered = p < 2;
        if (joinDelivered)
          await webhook(h, events.participantJoined(room.livekitName, info, { createdAt: Math.floor(joinedAtMs / 1000) })).expect(200);
        call.people.push({ identity, info, leftAtCall: null, trueEnd: null, deliveredLeave: null, joinDelivered });
      }
      calls.push(call);
    }
    await settled(h);

    const phase = (from: number, to: number) => calls.slice(from, to);
    const lost = phase(0, 20);
    const died = phase(20, 30);
    const delivered = phase(30, 40);

    // Two periods with LiveKit answering: every room and person seen, the unknown ten opened.
    expect(await runAtPeriod(0)).toBe(true);
    expect(await runAtPeriod(1)).toBe(true);
    await settled(h);
    // First ends: half of each kind. The lost-webhook rooms lose one person a period before the room closes.
    for (const call of lost.slice(0, 10)) {
      const [first] = call.people;
      first.leftAtCall = h.livekit.calls.length;
      first.trueEnd = Date.now();
      h.livekit.removeParticipant(call.livekitName, first.identity);
    }
    for (const call of died.slice(0, 5)) await end(call);
    for (const call of delivered.slice(0, 5)) await end(call);
    await settled(h);
    expect(await runAtPeriod(2)).toBe(true);
    for (const call of lost.slice(0, 10)) await end(call);
    await settled(h);
    expect(await runAtPeriod(3)).toBe(true);
    expect(await runAtPeriod(4)).toBe(true);

    // Just before LiveKit becomes unreachable, the second half ends.
    for (const call of [...lost.slice(10), ...died.slice(5)]) await end(call);
    await settled(h);
    const openBefore = await openConnections();
    h.livekit.failNext('ListRooms', 1, 503);
    expect(await runAtPeriod(5)).toBe(false);
    h.livekit.delayNext('ListRooms', 1, PERIOD_MS);
    expect(await runAtPeriod(6)).toBe(false);
    // Nothing ended while LiveKit could not be asked.
    expect(await openConnections()).toEqual(openBefore);
    for (const call of [...lost.slice(10), ...died.slice(5)]) expect((await detail(call.id)).status).toBe('active');

    expect(await runAtPeriod(7)).toBe(true);
    for (const call of delivered.slice(5)) await end(call);
    await settled(h);
    expect(await runAtPeriod(8)).toBe(true);
    await settled(h);

    // Every room ended, every connection closed, billed as the oracle says.
    const answered = h.livekit.calls.map((c, index) => ({ ...c, index })).filter((c) => c.status === 200);
    let billed = 0;
    for (const call of calls) {
      const room = await detail(call.id);
      expect(room.status).toBe('ended');
      const expected = oracle(call, answered);
      const shown = new Map(room.participants.map((p) => [p.participant_identity, p]));
      expect(shown.size).toBe(call.people.length);
      for (const person of call.people) {
        const p = shown.get(person.identity)!;
        const end = expected.endOf(person);
        const leftAt = Date.parse(p.left_at!);
        // Where the product says it was last seen: when it asked, never after LiveKit answered.
        expect(leftAt).toBeLessThanOrEqual(end);
        expect(end - leftAt).toBeLessThan(1_000);
        const trueEnd = person.trueEnd ?? call.trueEnd!;
        expect(leftAt).toBeLessThanOrEqual(trueEnd);
        expect(leftAt).toBeGreaterThanOrEqual(trueEnd - PERIOD_MS - 1_000);
        const minutes = Math.max(1, Math.ceil((end - Number(person.info.joinedAtMs)) / MINUTE));
        expect([person.identity, p.connection_minutes, p.charged_cents]).toEqual([person.identity, minutes, minutes * RATE.participant]);
      }
      expect(room.total_charged_cents).toBe(room.participants.reduce((sum, p) => sum + p.charged_cents!, 0));
      billed += room.total_charged_cents;
    }

    const credit = (await h.t.http().get('/v1/billing/credit').set(org.auth).expect(200)).body as { credit_cents: number };
    expect(credit.credit_cents).toBe(CREDIT - billed);
    const [ledger] = (await h.t.db.query(
      `SELECT coalesce(sum(delta_cents), 0)::bigint AS sum FROM ledger_entries WHERE organization_id = $1`,
      [org.organizationId],
    )) as { sum: number }[];
    expect(Number(ledger.sum)).toBe(credit.credit_cents);

    await receiver.waitFor(
      (all) => calls.every((call) => all.some((x) => x.event.type === 'room.ended' && x.event.data.id === call.id)),
      20_000,
    );
    for (const call of calls) {
      expect(receiver.received.filter((x) => x.event.type === 'room.ended' && x.event.data.id === call.id)).toHaveLength(1);
    }
  }, 120_000);

  async function openConnections(): Promise<string[]> {
    const rows = (await h.t.db.query(`SELECT identity FROM connections WHERE organization_id = $1 AND left_at IS NULL ORDER BY identity`, [
      org.organizationId,
    ])) as { identity: string }[];
    return rows.map((row) => row.identity);
  }
});

type Answered = LiveKitCall & { index: number };

/**
 * The metering rule applied to LiveKit's answers: a connection ends at its delivered leave, else at
 * the last answer that listed it, else (never listed) at its join; never after its room's end, which
 * is its delivered `room_finished`, else the last `ListRooms` answer that listed the room.
 */
function oracle(call: Call, answered: Answered[]) {
  const listedRoom = answered.filter((c) => c.method === 'ListRooms' && (call.removedAtCall === null || c.index < call.removedAtCall));
  const roomEnd =
    call.deliveredFinish !== null ? call.deliveredFinish * 1000 : listedRoom.length > 0 ? listedRoom[listedRoom.length - 1].at : null;
  return {
    endOf(person: Person): number {
      const joinedAt = Number(person.info.joinedAtMs);
      let end: number;
      if (person.deliveredLeave !== null) end = person.deliveredLeave * 1000;
      else {
        const gone = person.leftAtCall ?? call.removedAtCall ?? Infinity;
        const listings = answered.filter(
          (c) => c.method === 'ListParticipants' && (c.body as { room?: string }).room === call.livekitName && c.index < gone,
        );
        end = listings.length > 0 ? listings[listings.length - 1].at : joinedAt;
      }
      if (roomEnd !== null && roomEnd < end) end = roomEnd;
      return Math.max(end, joinedAt);
    },
  };
}
