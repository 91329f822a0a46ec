import { LiveKitReconciliationService } from '../../src/modules/metering/livekit-reconciliation.service';
import fc from 'fast-check';
import { seededRandom } from '../support/seeded-random';
import { createOrganization, type TestOrganization } from '../support/factories';
import type { WebhookEventJson } from '../support/livekit-webhooks';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

/**
 * The oracle is the in-order run: one room's events (joins, leaves, a second later leave of the same
 * connection, reconnects under a new sid, a resumed join, the translator, room_finished) delivered
 * to one organization in the order LiveKit stamped them, each applied before the next. The same
 * events, shuffled and partly delivered twice, go to another organization — applied one by one in
 * the shuffled order, or all at once — and everything billed must come out the same: each
 * connection's end, minutes and charge, the room's totals, the ledger per connection, the balance,
 * the history line and the usage rollup.
 */

interface Connection {
  identity: string;
  sid: string;
  agent: boolean;
  /** Seconds after the base time. */
  joinAt: number;
  /** Null: still connected when the room finished. */
  leaveAt: number | null;
  /** A second participant_left of the connection, later than the first (LiveKit reporting it again). */
  secondLeaveAt: number | null;
  /** A participant_joined reported again for the same sid (a resumed connection). */
  resumed: boolean;
}

interface Scenario {
  connections: Connection[];
  endAt: number;
}

const connectionShape = fc.record({
  joinAt: fc.integer({ min: 0, max: 600 }),
  /** How long it stays; beyond the room's end it is ended by the room. */
  stays: fc.option(fc.integer({ min: 0, max: 900 }), { nil: null }),
  secondLeaveAfter: fc.option(fc.integer({ min: 1, max: 200 }), { nil: null }),
  resumed: fc.boolean(),
  /** Reconnects once under a new sid, this long after leaving. */
  reconnectAfter: fc.option(fc.integer({ min: 0, max: 120 }), { nil: null }),
});

const scenarioShape = fc
  .record({
    people: fc.array(connectionShape, { minLength: 1, maxLength: 4 }),
    translator: fc.option(connectionShape, { nil: null }),
    endAfterLastJoin: fc.integer({ min: 1, max: 400 }),
  })
  .map(({ people, translator, endAfterLastJoin }): Scenario => {
    const connections: Connection[] = [];
    const add = (identity: string, agent: boolean, shape: ValueOf<typeof connectionShape>, index: number) => {
      const leaveAt = shape.stays === null ? null : shape.joinAt + shape.stays;
      connections.push({
        identity,
        sid: `PA_${identity}_${index}`,
        agent,
        joinAt: shape.joinAt,
        leaveAt,
        secondLeaveAt: leaveAt !== null && shape.secondLeaveAfter !== null ? leaveAt + shape.secondLeaveAfter : null,
        resumed: shape.resumed,
      });
      if (leaveAt !== null && shape.reconnectAfter !== null) {
        const rejoinAt = leaveAt + shape.reconnectAfter;
        connections.push({
          identity,
          sid: `PA_${identity}_${index}_again`,
          agent,
          joinAt: rejoinAt,
          leaveAt: null,
          secondLeaveAt: null,
          resumed: false,
        });
      }
    };
    people.forEach((shape, i) => add(`person${i}`, false, shape, i));
    if (translator) add('agent-translator', true, translator, 0);
    const endAt = Math.max(...connections.map((c) => c.joinAt)) + endAfterLastJoin;
    return { connections, endAt };
  });

const deliveryShape = fc.record({
  seed: fc.integer(),
  /** Which events are delivered a second time (same event id). */
  twice: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
  /** One at a time, each applied before the next (the application order is the shuffled one), or all at once. */
  oneByOne: fc.boolean(),
});

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

interface Stamped {
  event: WebhookEventJson;
  at: number;
  /** Among events of the same second, LiveKit reports joins before leaves and the room's end last. */
  rank: number;
}

function eventsOf(scenario: Scenario, livekitName: string, t: number, idPrefix: string): Stamped[] {
  const out: Stamped[] = [];
  const info = (c: Connection) => ({
    identity: c.identity,
    sid: c.sid,
    joinedAt: String(t + c.joinAt),
    ...(c.agent ? { kind: 'AGENT' as const } : {}),
  });
  for (const c of scenario.connections) {
    const id = (what: string) => `${idPrefix}_${c.sid}_${what}`;
    out.push({
      event: events.participantJoined(livekitName, info(c), { id: id('joined'), createdAt: t + c.joinAt }),
      at: c.joinAt,
      rank: 0,
    });
    if (c.resumed)
      out.push({
        event: events.participantJoined(livekitName, info(c), { id: id('resumed'), createdAt: t + c.joinAt }),
        at: c.joinAt,
        rank: 0,
      });
    for (const [what, at] of [
      ['left', c.leaveAt],
      ['left-again', c.secondLeaveAt],
    ] as const) {
      if (at !== null) out.push({ event: events.participantLeft(livekitName, info(c), { id: id(what), createdAt: t + at }), at, rank: 1 });
    }
  }
  out.push({
    event: events.roomFinished(livekitName, { id: `${idPrefix}_finished`, createdAt: t + scenario.endAt }),
    at: scenario.endAt,
    rank: 2,
  });
  return out;
}

function inOrder(stamped: Stamped[]): WebhookEventJson[] {
  return [...stamped].sort((a, b) => a.at - b.at || a.rank - b.rank).map((s) => s.event);
}

function shuffled(stamped: Stamped[], delivery: ValueOf<typeof deliveryShape>): WebhookEventJson[] {
  const random = seededRandom(delivery.seed);
  const out = stamped.map((s) => s.event);
  stamped.forEach((s, i) => {
    if (delivery.twice[i % delivery.twice.length]) out.push(s.event);
  });
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe('metering in any delivery order', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  // An hour ahead: every event follows the rooms' creation.
  const t = Math.ceil(Date.now() / 3_600_000) * 3600 + 3600;
  let run = 0;

  async function side(scenario: Scenario, label: string) {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    for (const identity of new Set(scenario.connections.filter((c) => !c.agent).map((c) => c.identity))) {
      await token(h, org, room.name, { identity, languages: [identity.endsWith('1') ? 'de' : 'en'] }).expect(201);
    }
    return { org, room, stamped: eventsOf(scenario, room.livekitName, t, `EV_${label}`) };
  }

  /** Three reconciliations at random moments of a delivery. */
  async function reconcileMeanwhile(seed: number): Promise<boolean[]> {
    const random = seededRandom(seed ^ 0x5eed);
    const outcomes: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 30)));
      outcomes.push(await h.t.app.get(LiveKitReconciliationService).run());
    }
    return outcomes;
  }

  async function deliverOneByOne(sequence: WebhookEventJson[]) {
    for (const event of sequence) {
      await webhook(h, event).expect(200);
      await settled(h);
    }
  }

  /** Everything billed, as the API shows it and as stored, without the ids that differ between organizations. */
  async function observe(org: TestOrganization, roomId: string) {
    const detail = (await h.t.http().get(`/v1/rooms/${roomId}`).set(org.auth).expect(200)).body as Record<string, unknown> & {
      participants: Record<string, unknown>[];
    };
    const credit = (await h.t.http().get('/v1/billing/credit').set(org.auth).expect(200)).body as { credit_cents: number };
    const history = (await h.t.http().get('/v1/billing/history?expand=participants').set(org.auth).expect(200)).body as {
      items: Record<string, unknown>[];
    };
    const ledger = (await h.t.db.query(
      `SELECT c.participant_sid, sum(e.delta_cents)::int AS cents, count(*) FILTER (WHERE e.kind = 'charge')::int AS charges
         FROM connections c LEFT JOIN ledger_entries e ON e.connection_id = c.id
        WHERE c.room_id = $1 GROUP BY c.participant_sid ORDER BY c.participant_sid`,
      [roomId],
    )) as { participant_sid: string; cents: number | null; charges: number }[];
    // The usage overview as a dashboard reads it: the hours around the calls.
    const window = `starts_after=${new Date((t - 3600) * 1000).toISOString()}&ends_before=${new Date((t + 3 * 3600) * 1000).toISOString()}`;
    const overview = (await h.t.http().get(`/v1/usage/overview?${window}&granularity=hour`).set(org.auth).expect(200)).body as unknown;
    const usage = (await h.t.db.query(
      `SELECT slot, minutes::int, sessions, participants FROM usage_slots
        WHERE organization_id = $1 AND (minutes, sessions, participants) <> (0, 0, 0) ORDER BY slot`,
      [org.organizationId],
    )) as Record<string, unknown>[];
    const withoutIds = (participants: Record<string, unknown>[]) =>
      participants.map(({ id: _id, ...rest }) => rest).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    return {
      room: {
        status: detail.status,
        started_at: detail.started_at,
        ended_at: detail.ended_at,
        total_connection_minutes: detail.total_connection_minutes,
        total_charged_cents: detail.total_charged_cents,
        participants: withoutIds(detail.participants),
      },
      credit_cents: credit.credit_cents,
      // The room's line (the grant lines differ only in when each organization was given its credit).
      history: history.items
        .filter((line) => line.kind === 'room_usage')
        .map((line) => {
          const room = line.room as (Record<string, unknown> & { participants: Record<string, unknown>[] }) | null | undefined;
          return room ? { ...line, room: { ...room, id: undefined, name: undefined, participants: withoutIds(room.participants) } } : line;
        }),
      ledger: ledger.map(({ participant_sid, cents, charges }) => ({ sid: participant_sid.replace(/^PA_/, ''), cents, charges })),
      usage,
      overview,
    };
  }

  it('bills every connection to its earliest reported end, exactly as the in-order run', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioShape, deliveryShape, async (scenario, delivery) => {
        run += 1;
        const reference = await side(scenario, `${run}_in_order`);
        const reordered = await side(scenario, `${run}_reordered`);
        await deliverOneByOne(inOrder(reference.stamped));
        const sequence = shuffled(reordered.stamped, delivery);
        // Reconciliation with LiveKit runs meanwhile: LiveKit (the double) has both rooms, and the people
        // in them join later than any listing is asked for, so it concludes nothing and changes nothing.
        const reconciling = reconcileMeanwhile(delivery.seed);
        if (delivery.oneByOne) await deliverOneByOne(sequence);
        else {
          await Promise.all(sequence.map((event) => webhook(h, event).expect(200)));
          await settled(h);
        }
        expect(await reconciling).toEqual([true, true, true]);
        const expected = await observe(reference.org, reference.room.id);
        expect(await observe(reordered.org, reordered.room.id)).toEqual(expected);

        // The in-order run itself bills what the rules say: each connection to its first leave, or the room's end.
        const rate = (agent: boolean) => (agent ? 'translator' : 'participant');
        const rates = (await h.t.http().get('/v1/billing/credit').set(reference.org.auth).expect(200)).body as {
          rates: { participant_class: string; cents_per_minute: number }[];
        };
        const centsPerMinute = (agent: boolean) => rates.rates.find((r) => r.participant_class === rate(agent))?.cents_per_minute;
        const billed = scenario.connections
          .map((c) => {
            const end = Math.min(c.leaveAt ?? Infinity, scenario.endAt);
            const minutes = Math.max(1, Math.ceil((end - c.joinAt) / 60));
            return { sid: c.sid.replace(/^PA_/, ''), cents: -minutes * centsPerMinute(c.agent)!, charges: 1 };
          })
          .sort((a, b) => a.sid.localeCompare(b.sid));
        expect(expected.ledger).toEqual(billed);
        expect(expected.credit_cents).toBe(10_000 + billed.reduce((sum, c) => sum + c.cents, 0));
      }),
      { numRuns: 12 },
    );
  });
});
