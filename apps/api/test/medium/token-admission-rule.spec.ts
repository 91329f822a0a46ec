import { rawRows } from '../support/raw-statements';
import { admitToken, changesNothing, heldLanguages, LanguageNotHeld, RoomModeMismatch, type StreamingMode } from '@app/domain';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { SQL_FUNCTIONS } from '../../src/database/functions/sql-functions';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * The admission rule is written twice on purpose: in libs/domain (admitToken, for the exclusive
 * decision) and as the SQL function admit_token_shared (the shared one, in one statement). Over the
 * same generated cases, every room mode × what the room holds × what the token asks, the function
 * must admit exactly the tokens the rule admits as changing nothing, and held_languages must find
 * exactly the languages heldLanguages finds.
 */

type Holder =
  | { connected: string[] | null; left?: true } // null: the translator
  | { token: 'asker' | 'other' | 'another'; languages: string[]; reservation: 'fresh' | 'lapsed' | 'used' };

const ASKER = 'asker';

const SCENARIOS: Record<string, Holder[]> = {
  'an empty room': [],
  'en connected': [{ connected: ['en'] }],
  'one mono device (de+en) connected': [{ connected: ['de', 'en'] }],
  'a full room: en and de connected': [{ connected: ['en'] }, { connected: ['de'] }],
  'en connected, then left': [{ connected: ['en'], left: true }],
  'the translator and en connected': [{ connected: null }, { connected: ['en'] }],
  'en reserved': [{ token: 'other', languages: ['en'], reservation: 'fresh' }],
  'de+en reserved': [{ token: 'other', languages: ['de', 'en'], reservation: 'fresh' }],
  'en reserved twice': [
    { token: 'other', languages: ['en'], reservation: 'fresh' },
    { token: 'another', languages: ['fr', 'en'], reservation: 'fresh' },
  ],
  'en connected, a reservation of de lapsed': [{ connected: ['en'] }, { token: 'other', languages: ['de'], reservation: 'lapsed' }],
  'a used reservation of de (its participant connected and left)': [{ token: 'other', languages: ['de'], reservation: 'used' }],
  'a full room by reservation: en connected, de reserved': [
    { connected: ['en'] },
    { token: 'other', languages: ['de'], reservation: 'fresh' },
  ],
  "en connected, the asker's own reservation of de": [{ connected: ['en'] }, { token: ASKER, languages: ['de'], reservation: 'fresh' }],
  "only the asker's own reservation of de+en": [{ token: ASKER, languages: ['de', 'en'], reservation: 'fresh' }],
  'the asker and another reserve en': [
    { token: ASKER, languages: ['en'], reservation: 'fresh' },
    { token: 'other', languages: ['en'], reservation: 'fresh' },
  ],
  'three held after a lapsed reservation connected: de, en, fr': [{ connected: ['de'] }, { connected: ['en'] }, { connected: ['fr'] }],
};

const MODES: (StreamingMode | null)[] = [null, 'mono', 'dual'];

/** 0 to 3 languages, the same one twice included (requests never send those: they are 422 before). */
const REQUESTS: string[][] = [
  [],
  ['de'],
  ['en'],
  ['fr'],
  ...['de', 'en', 'fr'].flatMap((a) => ['de', 'en', 'fr'].map((b) => [a, b])),
  ['de', 'en', 'fr'],
  ['en', 'en', 'de'],
];

interface Case {
  room: string;
  mode: StreamingMode | null;
  scenario: string;
  requested: string[];
}

type Verdict = 'shared' | 'exclusive' | 'mode_mismatch' | 'language_not_held' | 'invalid';

/** The languages held for the asker, as libs/domain counts them: open connections and other tokens' fresh reservations. */
function heldFor(holders: Holder[], asker: string | null): string[] {
  return heldLanguages(
    holders.flatMap((h) => {
      if ('connected' in h) return h.left ? [] : [h.connected];
      return h.reservation === 'fresh' && h.token !== asker ? [h.languages] : [];
    }),
  );
}

/** The rule of libs/domain, as the exclusive admission applies it. */
function ruleVerdict(c: Case): Verdict {
  try {
    return changesNothing(admitToken({ mode: c.mode, held: heldFor(SCENARIOS[c.scenario], ASKER) }, c.requested)) ? 'shared' : 'exclusive';
  } catch (error) {
    if (error instanceof RoomModeMismatch) return 'mode_mismatch';
    if (error instanceof LanguageNotHeld) return 'language_not_held';
    if (error instanceof RangeError) return 'invalid';
    throw error;
  }
}

describe('token admission: the rule of libs/domain and the SQL functions agree', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let organizationId: string;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    [{ id: organizationId }] = await rawRows<{ id: string }>(
      database,
      `INSERT INTO organizations (name) VALUES ('admission') RETURNING id`,
    );
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  /** One room per case, named `<prefix>-<index>`, holding the case's scenario. */
  async function roomsFor(prefix: string): Promise<Case[]> {
    const cases: Case[] = [];
    for (const mode of MODES)
      for (const scenario of Object.keys(SCENARIOS))
        for (const requested of REQUESTS) cases.push({ room: `${prefix}-${cases.length}`, mode, scenario, requested });
    const [{ id: userId }] = await rawRows<{ id: string }>(
      database,
      `INSERT INTO users (organization_id, email) VALUES ($1, $2) RETURNING id`,
      [organizationId, `${prefix}@example.com`],
    );
    await rawRows(
      database,
      `INSERT INTO rooms (organization_id, name, livekit_name, status, streaming_mode, created_by_user_id)
       SELECT $1::uuid, x.name, $1::uuid::text || '.' || x.name, x.status, x.mode, $2 FROM jsonb_to_recordset($3) AS x(name text, status text, mode text)`,
      [organizationId, userId, JSON.stringify(cases.map((c, i) => ({ name: c.room, status: i % 2 ? 'active' : 'created', mode: c.mode })))],
    );
    const holders = cases.flatMap((c) => SCENARIOS[c.scenario].map((h, i) => ({ room: c.room, i, ...h })));
    await rawRows(
      database,
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, left_at, cents_per_minute)
       SELECT r.id, r.organization_id, 'PA_' || x.i, 'c' || x.i, CASE WHEN x.connected IS NULL THEN 'translator' ELSE 'member' END,
              x.connected, now() - interval '1 minute', CASE WHEN x."left" THEN now() END, 3
         FROM jsonb_to_recordset($2) AS x(room text, i int, connected text[], "left" boolean)
         JOIN rooms r ON r.organization_id = $1 AND r.name = x.room`,
      [organizationId, JSON.stringify(holders.filter((h) => 'connected' in h))],
    );
    await rawRows(
      database,
      `INSERT INTO room_tokens (room_id, identity, kind, languages, reserved_until)
       SELECT r.id, x.token, 'member', x.languages,
              CASE x.reservation WHEN 'fresh' THEN clock_timestamp() + interval '2 minutes'
                                 WHEN 'lapsed' THEN clock_timestamp() - interval '1 second' END
         FROM jsonb_to_recordset($2) AS x(room text, token text, languages text[], reservation text)
         JOIN rooms r ON r.organization_id = $1 AND r.name = x.room`,
      [organizationId, JSON.stringify(holders.filter((h) => 'token' in h))],
    );
    return cases;
  }

  const request = (c: Case, ord: number) => ({
    ord,
    organization_id: organizationId,
    room_name: c.room,
    identity: ASKER,
    kind: 'guest',
    display_name: null,
    languages: c.requested,
  });

  /** Each disagreement, described; none is expected. */
  function disagreements(cases: Case[], admitted: Map<string, boolean>) {
    return cases.flatMap((c) => {
      const rule = ruleVerdict(c);
      const sql = admitted.get(c.room);
      return sql === (rule === 'shared') ? [] : [{ mode: c.mode, scenario: c.scenario, requested: c.requested, rule, sql }];
    });
  }

  it('held_languages finds what heldLanguages finds, for the asker and for nobody', async () => {
    const cases = await roomsFor('held');
    const rows = await rawRows<{ name: string; asker: string[]; nobody: string[] }>(
      database,
      `SELECT r.name, held_languages(r.id, $2) AS asker, held_languages(r.id, NULL) AS nobody FROM rooms r
        WHERE r.organization_id = $1 AND r.name LIKE 'held-%'`,
      [organizationId, ASKER],
    );
    const byRoom = new Map(rows.map((row) => [row.name, row]));
    expect(byRoom.size).toBe(cases.length);
    for (const c of cases) {
      const holders = SCENARIOS[c.scenario];
      expect({ scenario: c.scenario, ...byRoom.get(c.room) }).toEqual({
        scenario: c.scenario,
        name: c.room,
        asker: heldFor(holders, ASKER),
        nobody: heldFor(holders, null),
      });
    }
  });

  it('admit_tokens_shared admits exactly the tokens the rule admits as changing nothing, and reserves their languages', async () => {
    const cases = await roomsFor('batch');
    const admitted = new Map<string, boolean>();
    for (let from = 0; from < cases.length; from += 100) {
      const batch = cases.slice(from, from + 100);
      const rows = await rawRows<{ ord: number; room_name: string; streaming_mode: string | null; admitted: boolean }>(
        database,
        `SELECT * FROM admit_tokens_shared($1, 120)`,
        [JSON.stringify(batch.map(request))],
      );
      expect(rows.map((row) => row.ord).sort((a, b) => a - b)).toEqual(batch.map((_, ord) => ord));
      for (const row of rows) {
        expect({ room: row.room_name, mode: row.streaming_mode }).toEqual({ room: batch[row.ord].room, mode: batch[row.ord].mode });
        admitted.set(row.room_name, row.admitted);
      }
    }
    expect(disagreements(cases, admitted)).toEqual([]);

    // Every verdict of the rule occurs, so the comparison above compared something.
    const verdicts = new Map<Verdict, number>();
    for (const c of cases) verdicts.set(ruleVerdict(c), (verdicts.get(ruleVerdict(c)) ?? 0) + 1);
    expect([...verdicts.keys()].sort()).toEqual(['exclusive', 'invalid', 'language_not_held', 'mode_mismatch', 'shared']);
    expect(cases.length).toBe(MODES.length * Object.keys(SCENARIOS).length * REQUESTS.length);

    // An admitted token reserved its languages for two minutes; any other left the asker's token as it was.
    const tokens = await rawRows<{ name: string; languages: string[]; fresh_for: number }>(
      database,
      `SELECT r.name, t.languages, extract(epoch FROM t.reserved_until - clock_timestamp())::float8 AS fresh_for
         FROM room_tokens t JOIN rooms r ON r.id = t.room_id WHERE r.organization_id = $1 AND r.name LIKE 'batch-%' AND t.identity = $2`,
      [organizationId, ASKER],
    );
    const tokenOf = new Map(tokens.map((t) => [t.name, t]));
    for (const c of cases) {
      const token = tokenOf.get(c.room);
      const own = SCENARIOS[c.scenario].find((h) => 'token' in h && h.token === ASKER);
      if (admitted.get(c.room)) {
        expect({ room: c.room, languages: token?.languages }).toEqual({ room: c.room, languages: c.requested });
        expect(token!.fresh_for).toBeGreaterThan(100);
        expect(token!.fresh_for).toBeLessThanOrEqual(120);
      } else {
        expect({ room: c.room, languages: token?.languages }).toEqual({
          room: c.room,
          languages: own && 'token' in own ? own.languages : undefined,
        });
      }
    }
  });

  it('admit_token_shared, one request at a time, answers the same', async () => {
    const cases = await roomsFor('single');
    const admitted = new Map<string, boolean>();
    for (const c of cases) {
      const [row] = await rawRows<{ admitted: boolean }>(database, `SELECT * FROM admit_token_shared($1, $2, $3, 'guest', NULL, $4, 120)`, [
        organizationId,
        c.room,
        ASKER,
        c.requested,
      ]);
      admitted.set(c.room, row.admitted);
    }
    expect(disagreements(cases, admitted)).toEqual([]);
  });

  it('the database runs the definitions of database/functions/*.sql', async () => {
    const rows = await rawRows<{ proname: string; prosrc: string }>(
      database,
      `SELECT proname, prosrc FROM pg_proc WHERE proname = ANY($1)`,
      [[...SQL_FUNCTIONS]],
    );
    expect(rows.map((row) => row.proname).sort()).toEqual([...SQL_FUNCTIONS].sort());
    for (const row of rows) {
      const file = readFileSync(path.join(__dirname, '../../src/database/functions', `${row.proname}.sql`), 'utf8');
      const body = file.slice(file.indexOf('$$') + 2, file.lastIndexOf('$$'));
      expect({ name: row.proname, body: row.prosrc }).toEqual({ name: row.proname, body });
    }
  });
});
