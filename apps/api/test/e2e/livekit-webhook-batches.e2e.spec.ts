import { TRANSLATOR_JOBS } from '@app/contracts';
import { seededRandom } from '../support/seeded-random';
import { createOrganization, type TestOrganization } from '../support/factories';
import type { ParticipantInfoJson, WebhookEventJson } from '../support/livekit-webhooks';
import { createRoom, events, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';

/**
 * Differential test of batched webhook application: one scenario, delivered to one organization
 * strictly one event at a time (each applied before the next is sent) and to another all at once
 * in a seeded shuffled order (applied in batches), must leave both organizations identical in
 * everything a user sees and everything stored.
 */

const MINUTE = 60;

/** The scenario's rooms, by key: `main` stays live, `ends` finishes in the middle of its events. */
type RoomKey = 'main' | 'ends';

interface Person {
  identity: string;
  sid: string;
  /** Token languages; none for the agent. */
  languages?: string[];
  agent?: true;
}

interface Step {
  /** Unique per step (a duplicated delivery repeats the event, not the label). */
  label: string;
  room: RoomKey;
  event: WebhookEventJson;
}

interface Scenario {
  steps: Step[];
  /** Identities that need a member token, per room. */
  tokens: Record<RoomKey, { identity: string; languages: string[] }[]>;
}

/**
 * The scenario, deterministic for a given base time `t` (unix seconds) and event id prefix. Times
 * are offsets from `t`; `t` lies in the future, so every event is later than the rooms' creation
 * (a room never ends before it was created: ended_at would otherwise differ between the sides).
 */
function buildScenario(livekitNames: Record<RoomKey, string>, t: number, idPrefix: string): Scenario {
  const people: Record<string, Person> = {
    ann: { identity: 'ann', sid: 'PA_ann', languages: ['en'] },
    bob: { identity: 'bob', sid: 'PA_bob', languages: ['de'] },
    cleo: { identity: 'cleo', sid: 'PA_cleo', languages: ['en'] },
    dan: { identity: 'dan', sid: 'PA_dan', languages: ['de'] },
    eve: { identity: 'eve', sid: 'PA_eve', languages: ['en'] },
    frank: { identity: 'frank', sid: 'PA_frank', languages: ['de'] },
    agent: { identity: 'agent-translator', sid: 'PA_agent', agent: true },
    gus: { identity: 'gus', sid: 'PA_gus', languages: ['en'] },
    hana: { identity: 'hana', sid: 'PA_hana', languages: ['de'] },
    ivy: { identity: 'ivy', sid: 'PA_ivy', languages: ['en'] },
  };
  const info = (p: Person, joinedAt: number): Partial<ParticipantInfoJson> & { identity: string } => ({
    identity: p.identity,
    sid: p.sid,
    joinedAt: String(t + joinedAt),
    ...(p.agent ? { kind: 'AGENT' as const } : {}),
  });
  const steps: Step[] = [];
  const joined = (label: string, room: RoomKey, p: Person, at: number) =>
    steps.push({
      label,
      room,
      event: events.participantJoined(livekitNames[room], info(p, at), { id: `${idPrefix}_${label}`, createdAt: t + at }),
    });
  const left = (label: string, room: RoomKey, p: Person, joinedAt: number, at: number) =>
    steps.push({
      label,
      room,
      event: events.participantLeft(livekitNames[room], info(p, joinedAt), { id: `${idPrefix}_${label}`, createdAt: t + at }),
    });
  const again = (label: string) => {
    const first = steps.find((s) => s.label === label)!;
    steps.push({ ...first, label: `${label}#again` });
  };
  const { ann, bob, cleo, dan, eve, frank, agent, gus, hana, ivy } = people;

  // Delivery order of the sequential side.
  joined('ann+', 'main', ann, 5 * MINUTE); // the first join delivered: t+5m
  joined('gus+', 'ends', gus, 1 * MINUTE);
  joined('bob+', 'main', bob, 5 * MINUTE + 20);
  joined('agent+', 'main', agent, 5 * MINUTE + 30);
  joined('hana+', 'ends', hana, 1 * MINUTE + 30);
  left('cleo-', 'main', cleo, 6 * MINUTE + 40, 6 * MINUTE + 40 + 95); // delivered BEFORE cleo's join: 95 s -> 2 min
  again('ann+'); // the same event id delivered twice
  left('bob-', 'main', bob, 5 * MINUTE + 20, 5 * MINUTE + 20 + 45); // sub-minute: 45 s -> 1 min
  joined('cleo+', 'main', cleo, 6 * MINUTE + 40);
  joined('dan+', 'main', dan, -10 * MINUTE); // EARLIER than every join before it: the room start moves to t-10m
  left('hana-', 'ends', hana, 1 * MINUTE + 30, 1 * MINUTE + 30 + 150); // 150 s -> 3 min
  left('ann-', 'main', ann, 5 * MINUTE, 5 * MINUTE + 190); // 190 s -> 4 min
  steps.push({
    label: 'ends.finished',
    room: 'ends',
    event: events.roomFinished(livekitNames.ends, { id: `${idPrefix}_ends.finished`, createdAt: t + 10 * MINUTE }),
  });
  joined('ivy+', 'ends', ivy, 8 * MINUTE + 20); // a late join: reported after room_finished, it ends with the room
  joined('eve+', 'main', eve, 8 * MINUTE + 20);
  left('ann-dup', 'main', ann, 5 * MINUTE, 5 * MINUTE + 400); // a second leave, other id, later time: the earliest wins
  left('dan-', 'main', dan, -10 * MINUTE, -10 * MINUTE + 1000); // multi-minute: 1000 s -> 17 min
  left('agent-', 'main', agent, 5 * MINUTE + 30, 5 * MINUTE + 30 + 250); // 250 s -> 5 min, at the translator rate
  joined('frank+', 'main', frank, 8 * MINUTE + 40);

  return {
    steps,
    tokens: {
      main: [ann, bob, cleo, dan, eve, frank].map((p) => ({ identity: p.identity, languages: p.languages! })),
      ends: [gus, hana, ivy].map((p) => ({ identity: p.identity, languages: p.languages! })),
    },
  };
}

function seededShuffle<T>(items: T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function withoutId<T extends { id: unknown }>({ id: _id, ...rest }: T): Omit<T, 'id'> {
  return rest;
}

const SHUFFLE_SEED = 20240611;

describe('LiveKit webhooks applied in batches', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  // A whole hour at least an hour ahead: every event follows the rooms' creation.
  const t = Math.ceil(Date.now() / 3_600_000) * 3600 + 3600;
  const iso = (offsetSeconds: number) => new Date((t + offsetSeconds) * 1000).toISOString();

  interface Side {
    org: TestOrganization;
    rooms: Record<RoomKey, { id: string; livekitName: string }>;
    scenario: Scenario;
  }

  async function prepare(idPrefix: string): Promise<Side> {
    const org = await createOrganization(h.t);
    const main = await createRoom(h, org, { room_name: 'main' });
    const ends = await createRoom(h, org, { room_name: 'ends' });
    const scenario = buildScenario({ main: main.livekitName, ends: ends.livekitName }, t, idPrefix);
    for (const [key, room] of [
      ['main', main],
      ['ends', ends],
    ] as const) {
      for (const body of scenario.tokens[key]) await token(h, org, room.name, body).expect(201);
    }
    return { org, rooms: { main, ends }, scenario };
  }

  const eventIds = (side: Side) => [...new Set(side.scenario.steps.map((s) => s.event.id))];

  async function processedAt(ids: string[]) {
    return (await h.t.db.query(`SELECT event_id, processed_at FROM inbound_events WHERE provider = 'livekit' AND event_id = ANY($1)`, [
      ids,
    ])) as { event_id: string; processed_at: Date | null }[];
  }

  async function untilApplied(ids: string[], timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await processedAt(ids);
      if (rows.length === ids.length && rows.every((r) => r.processed_at !== null)) return;
      if (Date.now() > deadline) throw new Error(`events not applied in time: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Everything a user sees, and everything stored, with the ids that differ between organizations left out. */
  async function observe(side: Side) {
    const { org, rooms } = side;
    const roomState = async (key: RoomKey) => {
      const roomId = rooms[key].id;
      const detail = await h.t.http().get(`/v1/rooms/${roomId}`).set(org.auth).expect(200);
      // id, sid, created_at and created_by are the organization's own.
      const {
        id: _id,
        sid: _sid,
        created_at: _createdAt,
        created_by: _createdBy,
        ...body
      } = detail.body as {
        id: string;
        sid: string | null;
        created_at: string;
        created_by: string;
        name: string;
        status: string;
        streaming_mode: string | null;
        started_at: string | null;
        ended_at: string | null;
        total_connection_minutes: number;
        total_charged_cents: number;
        participants: ({ id: number } & Record<string, unknown>)[];
      };
      const [stored] = (await h.t.db.query(
        `SELECT status, started_at, ended_at, total_connection_minutes, total_charged_cents, translator_present, translator_generation
           FROM rooms WHERE id = $1`,
        [roomId],
      )) as {
        status: string;
        started_at: Date | null;
        ended_at: Date | null;
        total_connection_minutes: number;
        total_charged_cents: number;
        translator_present: boolean;
        translator_generation: number;
      }[];
      const connections = (await h.t.db.query(
        `SELECT identity, participant_sid, kind, languages, joined_at, left_at, connection_minutes, charged_cents, cents_per_minute
           FROM connections WHERE room_id = $1 ORDER BY joined_at, identity`,
        [roomId],
      )) as Record<string, unknown>[];
      // Per connection: its one charge and what corrections moved it by (a side that applied a
      // room's end before an earlier leave has a correction where the other has none).
      const charges = (await h.t.db.query(
        `SELECT c.identity, sum(e.delta_cents)::int AS delta_cents, count(*) FILTER (WHERE e.kind = 'charge')::int AS lines,
                min(e.currency) AS currency
           FROM ledger_entries e JOIN connections c ON c.id = e.connection_id
          WHERE e.room_id = $1 GROUP BY c.id, c.identity, c.joined_at ORDER BY c.joined_at, c.identity`,
        [roomId],
      )) as Record<string, unknown>[];
      // The translator's last decided job. Its id and generation, and how many jobs came before it, may
      // differ (a batch decides once, from where the room ended up); what it asks for must not.
      const [lastJob] = (await h.t.db.query(
        `SELECT job_name, (payload->>'generation')::int AS generation, payload->'languages' AS languages
           FROM outbox_jobs WHERE payload->>'roomId' = $1 ORDER BY (payload->>'generation')::int DESC LIMIT 1`,
        [roomId],
      )) as { job_name: string; generation: number; languages: string[] | null }[];
      expect(lastJob?.generation ?? 0).toBe(stored.translator_generation);
      const { translator_generation: _generation, ...storedRoom } = stored;
      return {
        detail: { ...body, participants: body.participants.map(withoutId) },
        stored: storedRoom,
        connections,
        charges,
        translator: {
          present: stored.translator_present,
          dispatched: lastJob?.job_name === TRANSLATOR_JOBS.dispatch,
          languages: lastJob?.job_name === TRANSLATOR_JOBS.dispatch ? lastJob.languages : null,
        },
      };
    };
    const credit = await h.t.http().get('/v1/billing/credit').set(org.auth).expect(200);
    const history = await h.t.http().get('/v1/billing/history').query({ limit: 50 }).set(org.auth).expect(200);
    const historyBody = JSON.parse(history.text) as {
      items: {
        kind: string;
        occurred_at: string;
        delta_cents: number;
        room?: { id: string; participants?: { id: number }[] } & Record<string, unknown>;
      }[];
    } & Record<string, unknown>;
    const usage = async (query: Record<string, string>) =>
      (await h.t.http().get('/v1/usage/overview').query(query).set(org.auth).expect(200)).body as {
        summary: Record<string, number>;
        buckets: { bucket: string; minutes: number; avg_room_minutes: number; sessions: number }[];
      };
    return {
      rooms: { main: await roomState('main'), ends: await roomState('ends') },
      credit: credit.body as { credit_cents: number },
      history: {
        ...historyBody,
        items: historyBody.items.map(({ room, occurred_at, ...line }) =>
          room
            ? {
                ...line,
                occurred_at,
                room: { ...withoutId(room), participants: room.participants?.map(withoutId) },
              }
            : // A credit line: the factory's grant happened when the organization was created.
              line,
        ),
      },
      usageHourly: await usage({ starts_after: iso(-2 * 3600), ends_before: iso(3 * 3600), granularity: 'hour', timezone: 'UTC' }),
      // A zone half an hour from UTC: the rollup is grouped per local bucket in SQL.
      usageDaily: await usage({
        starts_after: new Date((t - 2 * 86_400) * 1000).toISOString(),
        ends_before: new Date((t + 2 * 86_400) * 1000).toISOString(),
        granularity: 'day',
        timezone: 'Asia/Kolkata',
      }),
    };
  }

  it('leaves an organization fed one event at a time identical to one fed everything at once', async () => {
    const sequential = await prepare('EV_seq');
    const concurrent = await prepare('EV_cc');

    // Org A: strictly one at a time, each applied before the next is sent.
    for (const step of sequential.scenario.steps) {
      await webhook(h, step.event).expect(200);
      await untilApplied([step.event.id]);
    }

    // Org B: everything at once, in a seeded shuffled order. No pair needs to keep its order: a
    // connection ends at its earliest reported end (the second, later leave of ann, and hana's leave
    // against room_finished, come out the same either way).
    const shuffled = seededShuffle(concurrent.scenario.steps, SHUFFLE_SEED);
    expect(shuffled.map((s) => s.label)).not.toEqual(concurrent.scenario.steps.map((s) => s.label));
    await Promise.all(shuffled.map((step) => webhook(h, step.event).expect(200)));
    await untilApplied(eventIds(concurrent));

    // Each of A's events had a transaction of its own; B's were applied several to a transaction.
    // processed_at is the applying transaction's now(): one value per transaction.
    const transactionsOf = async (side: Side) => {
      const rows = await processedAt(eventIds(side));
      const sizes = new Map<number, number>();
      for (const row of rows) sizes.set(row.processed_at!.getTime(), (sizes.get(row.processed_at!.getTime()) ?? 0) + 1);
      return [...sizes.values()];
    };
    const sequentialTransactions = await transactionsOf(sequential);
    expect(sequentialTransactions).toHaveLength(eventIds(sequential).length);
    const concurrentTransactions = await transactionsOf(concurrent);
    expect(concurrentTransactions.length).toBeLessThan(eventIds(concurrent).length);
    expect(Math.max(...concurrentTransactions)).toBeGreaterThan(1);

    const a = await observe(sequential);
    const b = await observe(concurrent);

    // Absolute facts, so both sides cannot pass by being equally wrong.
    const rates = h.t.config.rates;
    const p = rates.participantCentsPerMinute;
    const tr = rates.translatorCentsPerMinute;
    for (const side of [a, b]) {
      const main = side.rooms.main;
      const ends = side.rooms.ends;
      expect(main.detail.participants).toEqual([
        {
          participant_identity: 'dan',
          participant_kind: 'member',
          languages: ['de'],
          joined_at: iso(-600),
          left_at: iso(400),
          connection_minutes: 17,
          charged_cents: 17 * p,
        },
        {
          participant_identity: 'ann',
          participant_kind: 'member',
          languages: ['en'],
          joined_at: iso(300),
          left_at: iso(490),
          connection_minutes: 4,
          charged_cents: 4 * p,
        },
        {
          participant_identity: 'bob',
          participant_kind: 'member',
          languages: ['de'],
          joined_at: iso(320),
          left_at: iso(365),
          connection_minutes: 1,
          charged_cents: 1 * p,
        },
        {
          participant_identity: 'agent-translator',
          participant_kind: 'translator',
          languages: null,
          joined_at: iso(330),
          left_at: iso(580),
          connection_minutes: 5,
          charged_cents: 5 * tr,
        },
        // left before it joined (in delivery order): closed at its leave, 95 s
        {
          participant_identity: 'cleo',
          participant_kind: 'member',
          languages: ['en'],
          joined_at: iso(400),
          left_at: iso(495),
          connection_minutes: 2,
          charged_cents: 2 * p,
        },
        {
          participant_identity: 'eve',
          participant_kind: 'member',
          languages: ['en'],
          joined_at: iso(500),
          left_at: null,
          connection_minutes: null,
          charged_cents: null,
        },
        {
          participant_identity: 'frank',
          participant_kind: 'member',
          languages: ['de'],
          joined_at: iso(520),
          left_at: null,
          connection_minutes: null,
          charged_cents: null,
        },
      ]);
      // The room starts at its earliest join, which was delivered after later ones.
      expect(main.detail).toMatchObject({
        status: 'active',
        streaming_mode: 'dual',
        started_at: iso(-600),
        ended_at: null,
        total_connection_minutes: 17 + 4 + 1 + 5 + 2,
        total_charged_cents: (17 + 4 + 1 + 2) * p + 5 * tr,
      });
      expect(ends.detail.participants).toEqual([
        {
          participant_identity: 'gus',
          participant_kind: 'member',
          languages: ['en'],
          joined_at: iso(60),
          left_at: iso(600),
          connection_minutes: 9,
          charged_cents: 9 * p,
        },
        {
          participant_identity: 'hana',
          participant_kind: 'member',
          languages: ['de'],
          joined_at: iso(90),
          left_at: iso(240),
          connection_minutes: 3,
          charged_cents: 3 * p,
        },
        // reported after room_finished: it ends with the room
        {
          participant_identity: 'ivy',
          participant_kind: 'member',
          languages: ['en'],
          joined_at: iso(500),
          left_at: iso(600),
          connection_minutes: 2,
          charged_cents: 2 * p,
        },
      ]);
      expect(ends.detail).toMatchObject({
        status: 'ended',
        started_at: iso(60),
        ended_at: iso(600),
        total_connection_minutes: 9 + 3 + 2,
        total_charged_cents: 14 * p,
      });
      // One charge per ended connection (corrections included, what it comes to): to its earliest leave, or the room's end.
      expect(main.charges.map((c) => [c.identity, c.delta_cents, c.lines])).toEqual([
        ['dan', -17 * p, 1],
        ['ann', -4 * p, 1],
        ['bob', -1 * p, 1],
        ['agent-translator', -5 * tr, 1],
        ['cleo', -2 * p, 1],
      ]);
      expect(ends.charges.map((c) => [c.identity, c.delta_cents, c.lines])).toEqual([
        ['gus', -9 * p, 1],
        ['hana', -3 * p, 1],
        ['ivy', -2 * p, 1],
      ]);
      const charged = [...main.charges, ...ends.charges].reduce((sum, c) => sum - Number(c.delta_cents), 0);
      expect(charged).toBe(main.detail.total_charged_cents + ends.detail.total_charged_cents);
      expect(side.credit.credit_cents).toBe(10_000 - charged);
      // Two languages remain connected in `main`: its translator is wanted; `ends` has ended.
      expect(main.translator).toEqual({ present: true, dispatched: true, languages: ['de', 'en'] });
      expect(ends.translator).toEqual({ present: false, dispatched: false, languages: null });
      // The history's lines sum to the balance.
      expect(side.history.items.map((line) => line.kind)).toEqual(['room_usage', 'room_usage', 'grant']);
      expect(side.history.items.reduce((sum, line) => sum + line.delta_cents, 0)).toBe(side.credit.credit_cents);
      // Each room counts in the hour of its start: `main` moved to the hour before t.
      const hourly = side.usageHourly.buckets.filter((bucket) => bucket.sessions > 0 || bucket.minutes > 0);
      expect(hourly).toEqual([
        { bucket: iso(-3600).replace('Z', '+00:00'), minutes: 29, avg_room_minutes: 29, sessions: 1 },
        { bucket: iso(0).replace('Z', '+00:00'), minutes: 14, avg_room_minutes: 14, sessions: 1 },
      ]);
      expect(side.usageHourly.summary).toEqual({ total_minutes: 43, total_rooms: 2, total_participants: 6 + 3 });
      expect(side.usageDaily.summary).toEqual(side.usageHourly.summary);
    }

    // And the two sides are identical.
    expect(b).toEqual(a);
  });
});
