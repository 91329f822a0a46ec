import fc from 'fast-check';
import { createOrganization, grantCredit, type TestOrganization } from '../support/factories';
import { checkoutAndPay, startFullHarness, stripeWebhook, type FullHarness } from '../support/payments-harness';
import { createRoom, events, settled, token, webhook } from '../support/rooms-harness';
import type { WebhookEventJson } from '../support/livekit-webhooks';

type Op =
  | { type: 'join' | 'leave'; room: number; person: number; dt: number }
  | { type: 'end'; room: number; dt: number }
  | { type: 'grant'; cents: number }
  | { type: 'purchase'; cents: number; paid: boolean };

const ROOMS = 2;
const PEOPLE = 4;

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ type: fc.constant('join' as const), room: fc.nat(ROOMS - 1), person: fc.nat(PEOPLE), dt: fc.nat(400) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ type: fc.constant('leave' as const), room: fc.nat(ROOMS - 1), person: fc.nat(PEOPLE), dt: fc.nat(400) }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('end' as const), room: fc.nat(ROOMS - 1), dt: fc.nat(400) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('grant' as const), cents: fc.integer({ min: 1, max: 5000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('purchase' as const), cents: fc.integer({ min: 500, max: 5000 }), paid: fc.boolean() }),
  },
);

/**
 * Delivery: each event may be sent twice, neighbours may be swapped (late delivery), and events go
 * out in bursts sent concurrently (a burst's events and their duplicates race each other).
 */
const delivery = fc.record({
  ops: fc.array(op, { minLength: 4, maxLength: 24 }),
  duplicate: fc.array(fc.boolean(), { minLength: 48, maxLength: 48 }),
  swap: fc.array(fc.boolean(), { minLength: 48, maxLength: 48 }),
  bursts: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 48, maxLength: 48 }),
});

interface HistoryLine {
  kind: string;
  delta_cents: number;
  room?: {
    total_charged_cents: number;
    total_connection_minutes: number;
    participants: { charged_cents: number; connection_minutes: number }[];
  };
}

describe('billing invariants under random joins, leaves, reconnects, room ends, purchases and grants', () => {
  let h: FullHarness;
  beforeAll(async () => {
    h = await startFullHarness();
  });
  afterAll(async () => h.close());

  /** Every line of the history, over all pages of `limit` lines. */
  async function wholeHistory(org: TestOrganization, limit: number): Promise<HistoryLine[]> {
    const lines: HistoryLine[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { body: { items: HistoryLine[]; next_offset: number | null } } = await h.t
        .http()
        .get(`/v1/billing/history?limit=${limit}&offset=${offset}`)
        .set(org.auth);
      lines.push(...page.body.items);
      offset = page.body.next_offset;
    }
    return lines;
  }

  /** balance = Σ ledger = Σ history, and each call's line is minus its room's total, which is Σ its breakdown. */
  async function expectLedgerInvariants(org: TestOrganization, pageLimit: number): Promise<void> {
    const credit = (await h.t.http().get('/v1/billing/credit').set(org.auth)).body.credit_cents as number;
    const [{ sum }] = (await h.t.db.query(
      `SELECT coalesce(sum(delta_cents), 0)::bigint AS sum FROM ledger_entries WHERE organization_id = $1`,
      [org.organizationId],
    )) as { sum: number }[];
    const lines = await wholeHistory(org, pageLimit);
    expect(credit).toBe(sum);
    expect(lines.reduce((acc, line) => acc + line.delta_cents, 0)).toBe(credit);
    for (const line of lines.filter((l) => l.kind === 'room_usage')) {
      const room = line.room!;
      expect(line.delta_cents).toBe(-room.total_charged_cents);
      expect(room.participants.reduce((acc, p) => acc + p.charged_cents, 0)).toBe(room.total_charged_cents);
      expect(room.participants.reduce((acc, p) => acc + p.connection_minutes, 0)).toBe(room.total_connection_minutes);
    }
  }

  async function run(
    org: TestOrganization,
    { ops, duplicate, swap, bursts }: { ops: Op[]; duplicate: boolean[]; swap: boolean[]; bursts: number[] },
  ) {
    const rooms = [];
    for (let r = 0; r < ROOMS; r++) {
      const room = await createRoom(h, org);
      for (let p = 0; p <= PEOPLE; p++) {
        // person PEOPLE is the translator (an agent, no token)
        if (p < PEOPLE) await token(h, org, room.name, { languages: [p % 2 === 0 ? 'en' : 'de'], identity: `p${p}` }).expect(201);
      }
      rooms.push({ ...room, ended: false, open: new Map<number, { sid: string; joinedAt: number }>() });
    }
    let clock = Math.floor(Date.now() / 1000) - 86_400;
    // The calls play out a day ago: so did the rooms' creation (a room cannot finish before it was created).
    await h.t.db.query(`UPDATE rooms SET created_at = to_timestamp($2) WHERE id = ANY($1)`, [rooms.map((room) => room.id), clock]);
    let sidCounter = 0;
    const outgoing: (() => Promise<unknown>)[] = [];
    const paidSessions = new Set<string>();
    for (const o of ops) {
      if (o.type === 'grant') {
        outgoing.push(() => grantCredit(h.t, org.organizationId, o.cents));
        continue;
      }
      if (o.type === 'purchase') {
        const event = await checkoutAndPay(h, org, o.cents, o.paid);
        if (o.paid) paidSessions.add(event.data.object.id);
        outgoing.push(() => stripeWebhook(h, event).expect(200));
        continue;
      }
      clock += o.dt;
      const room = rooms[o.room];
      if (room.ended) continue;
      const eventAt = clock;
      let event: WebhookEventJson | null = null;
      if (o.type === 'end') {
        room.ended = true;
        event = events.roomFinished(room.livekitName, { createdAt: eventAt });
      } else {
        const kind = o.person === PEOPLE ? ('AGENT' as const) : ('STANDARD' as const);
        const identity = o.person === PEOPLE ? 'translator' : `p${o.person}`;
        const open = room.open.get(o.person);
        if (o.type === 'join' && !open) {
          const sid = `PA_${++sidCounter}`;
          room.open.set(o.person, { sid, joinedAt: eventAt });
          event = events.participantJoined(room.livekitName, { identity, sid, kind, joinedAt: String(eventAt) }, { createdAt: eventAt });
        } else if (o.type === 'leave' && open) {
          room.open.delete(o.person);
          event = events.participantLeft(
            room.livekitName,
            { identity, sid: open.sid, kind, joinedAt: String(open.joinedAt) },
            { createdAt: eventAt },
          );
        }
      }
      if (event) {
        const e = event;
        outgoing.push(() => webhook(h, e).expect(200));
      }
    }
    // deliver: some neighbours swapped, some events twice
    for (let i = 0; i + 1 < outgoing.length; i++)
      if (swap[i % swap.length]) [outgoing[i], outgoing[i + 1]] = [outgoing[i + 1], outgoing[i]];
    const sends = outgoing.flatMap((send, i) => (duplicate[i % duplicate.length] ? [send, send] : [send]));
    for (let i = 0, burst = 0; i < sends.length; burst++) {
      const size = bursts[burst % bursts.length];
      await Promise.all(sends.slice(i, i + size).map((send) => send()));
      i += size;
      await settled(h, 20_000);
      await expectLedgerInvariants(org, 200);
    }
    return { rooms, sids: sidCounter, paidSessions };
  }

  it('keeps balance = Σ ledger = Σ history, room totals = Σ participants, charge = minutes × rate', async () => {
    const rates = h.t.config.rates;
    await fc.assert(
      fc.asyncProperty(delivery, async (input) => {
        const org = await createOrganization(h.t, { creditCents: 1000 });
        const { rooms, sids, paidSessions } = await run(org, input);

        await expectLedgerInvariants(org, 3);

        let connections = 0;
        for (const room of rooms) {
          const detail = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body as {
            total_connection_minutes: number;
            total_charged_cents: number;
            participants: {
              participant_kind: string;
              joined_at: string;
              left_at: string | null;
              connection_minutes: number | null;
              charged_cents: number | null;
            }[];
          };
          connections += detail.participants.length;
          const ended = detail.participants.filter((p) => p.left_at !== null);
          expect(detail.total_charged_cents).toBe(ended.reduce((acc, p) => acc + (p.charged_cents ?? 0), 0));
          expect(detail.total_connection_minutes).toBe(ended.reduce((acc, p) => acc + (p.connection_minutes ?? 0), 0));
          for (const p of detail.participants) {
            if (p.left_at === null) {
              expect([p.connection_minutes, p.charged_cents]).toEqual([null, null]);
              continue;
            }
            const seconds = (new Date(p.left_at).getTime() - new Date(p.joined_at).getTime()) / 1000;
            // Every started minute, at most the documented cap per connection (MAX_CONNECTION_MINUTES).
            expect(p.connection_minutes).toBe(Math.min(h.t.config.maxConnectionMinutes, Math.max(1, Math.ceil(seconds / 60))));
            const rate = p.participant_kind === 'translator' ? rates.translatorCentsPerMinute : rates.participantCentsPerMinute;
            expect(p.charged_cents).toBe((p.connection_minutes ?? 0) * rate);
          }
        }
        expect(connections).toBe(sids);
        const [{ purchases }] = (await h.t.db.query(
          `SELECT count(*)::int AS purchases FROM ledger_entries WHERE organization_id = $1 AND kind = 'purchase'`,
          [org.organizationId],
        )) as { purchases: number }[];
        expect(purchases).toBe(paidSessions.size);
      }),
      { numRuns: 30, endOnFailure: true },
    );
  }, 240_000);
});
