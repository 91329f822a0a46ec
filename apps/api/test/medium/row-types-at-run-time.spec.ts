import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';
import { MediumRows } from '../support/medium-rows';
import { rawRows } from '../support/raw-statements';

const ROOT = path.resolve(__dirname, '../../../..');

/** Column types whose JavaScript form depends on the pool's parsers: bigint, numeric and JSON, and their arrays. */
const PARSED_TYPES = ['int8', 'numeric', 'json', 'jsonb'].flatMap((type) => [type, `_${type}`]);

interface Table {
  name: string;
  columns: string[];
  /** Its json and jsonb columns. */
  jsonColumns: string[];
}

/** The tables holding a column of `PARSED_TYPES`, with all their columns, as the migrated schema has them. */
async function tablesToCheck(database: DatabaseClient): Promise<Table[]> {
  const rows = await rawRows<{ table_name: string; columns: string[]; json_columns: string[] }>(
    database,
    `SELECT c.table_name, array_agg(c.column_name::text ORDER BY c.ordinal_position) AS columns,
            array_agg(c.column_name::text ORDER BY c.ordinal_position) FILTER (WHERE c.udt_name IN ('json', 'jsonb')) AS json_columns
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      GROUP BY c.table_name
     HAVING bool_or(c.udt_name = ANY($1::text[]))
      ORDER BY c.table_name`,
    [PARSED_TYPES],
  );
  return rows.map((row) => ({ name: row.table_name, columns: row.columns, jsonColumns: row.json_columns ?? [] }));
}

/**
 * What the generated types declare for `SELECT <columns> FROM <table>`, column by column: the
 * statements are written into a scratch repository and typed by `scripts/query-types.mjs` itself (a
 * fresh migrated database, the project's pgtyped settings), as every repository's are.
 */
function declaredTypes(tables: Table[]): { columns: Map<string, Map<string, string>>; aliases: Map<string, string> } {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'row-types-'));
  try {
    const statements = tables.map(
      (table, i) =>
        `export const T${i} = sql<IT${i}Query>\`SELECT ${table.columns.map((c) => `"${c}"`).join(', ')} FROM "${table.name}"\`;`,
    );
    writeFileSync(path.join(scratch, 'probe.repository.ts'), `import { sql } from './typed-sql';\n${statements.join('\n')}\n`);
    const run = spawnSync(process.execPath, ['scripts/query-types.mjs'], {
      cwd: ROOT,
      env: { ...process.env, QUERY_TYPES_SOURCE: scratch },
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`query-types.mjs failed:\n${run.stdout}${run.stderr}`);
    const generated = readFileSync(path.join(scratch, 'probe.repository.types.ts'), 'utf8');
    const aliases = new Map([...generated.matchAll(/^export type (\w+) = (.+);$/gm)].map((m) => [m[1], m[2]] as const));
    const columns = new Map<string, Map<string, string>>();
    tables.forEach((table, i) => {
      const body = new RegExp(`export interface IT${i}Result \\{\\n([^}]*)\\n\\}`).exec(generated)?.[1];
      if (body === undefined) throw new Error(`no result type generated for ${table.name}`);
      columns.set(table.name, new Map([...body.matchAll(/^ {2}"?(\w+)"?: (.+);$/gm)].map((m) => [m[1], m[2]] as const)));
    });
    return { columns, aliases };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `a | (b)[] | { [key: string]: c }` split at its top-level bars. */
function alternatives(type: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < type.length; i++) {
    if ('([{'.includes(type[i])) depth++;
    else if (')]}'.includes(type[i])) depth--;
    else if (type[i] === '|' && depth === 0) {
      parts.push(type.slice(start, i).trim());
      start = i + 1;
    }
  }
  return [...parts, type.slice(start).trim()];
}

/** Whether `value`, as the pool returned it, is of the TypeScript type `type` (as pgtyped writes them). */
function fits(value: unknown, type: string, aliases: Map<string, string>): boolean {
  return alternatives(type).some((alternative) => {
    const alias = aliases.get(alternative);
    if (alias !== undefined) return fits(value, alias, aliases);
    const array = /^\((.+)\)\[\]$/.exec(alternative) ?? /^(\w+)\[\]$/.exec(alternative);
    if (array) return Array.isArray(value) && value.every((element) => fits(element, array[1], aliases));
    const record = /^\{ \[key: string\]: (.+) \}$/.exec(alternative);
    if (record) {
      return (
        typeof value === 'object' &&
        value !== null &&
        Object.getPrototypeOf(value) === Object.prototype &&
        Object.values(value).every((v) => fits(v, record[1], aliases))
      );
    }
    switch (alternative) {
      case 'null':
        return value === null;
      case 'number':
      case 'string':
      case 'boolean':
        return typeof value === alternative;
      case 'Date':
        return value instanceof Date;
      case 'Buffer':
        return Buffer.isBuffer(value);
      default:
        throw new Error(`a generated type this test does not know: ${alternative}`);
    }
  });
}

const describeValue = (value: unknown): string =>
  `${value === null ? 'null' : Array.isArray(value) ? 'array' : value instanceof Date ? 'Date' : typeof value} ${JSON.stringify(value)}`;

/** One row in each table that has a bigint or JSON column (nulls where a column may be null are left to other rows). */
async function insertOneRowEach(db: DataSource): Promise<void> {
  const rows = new MediumRows(db);
  const owner = await rows.organization('row types');
  const org = owner.organizationId;
  const at = new Date('2025-01-02T03:04:05.678Z');
  const roomId = await rows.room(owner, { startedAt: at, endedAt: new Date(at.getTime() + 60_000), minutes: 1, chargedCents: 3 });
  const connectionId = await rows.connection(org, roomId, {
    joinedAt: at,
    leftAt: new Date(at.getTime() + 60_000),
    minutes: 1,
    chargedCents: 3,
  });
  const statements: [string, unknown[]][] = [
    [`INSERT INTO credit_accounts (organization_id, balance_cents, currency, low_balance_cents) VALUES ($1, 997, 'usd', 100)`, [org]],
    [
      `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, room_id, connection_id)
       VALUES ($1, 'charge', -3, 'usd', $2, $3, $4)`,
      [org, at, roomId, connectionId],
    ],
    [`INSERT INTO glossary_revisions (organization_id, revision) VALUES ($1, 2)`, [org]],
    [
      `INSERT INTO audit_events (organization_id, action, actor_type, target_type, target_id, details)
       VALUES ($1::uuid, 'credit.granted', 'operator', 'organization', $1::text, '{"delta_cents": 100}')`,
      [org],
    ],
    [
      `WITH g AS (INSERT INTO glossaries (organization_id, name) VALUES ($1, 'terms') RETURNING id)
       INSERT INTO glossary_entries (glossary_id, organization_id, terms, term_keys, sounds_like)
       SELECT id, $1, '{"en": "LiveKit", "es": "LiveKit"}', '{"en": "livekit"}', '{"en": ["live kit"]}' FROM g`,
      [org],
    ],
    [`INSERT INTO usage_slots (organization_id, slot, minutes, sessions, participants) VALUES ($1, $2, 1, 1, 1)`, [org, at]],
    [`INSERT INTO usage_versions (organization_id, version) VALUES ($1, 1) ON CONFLICT DO NOTHING`, [org]],
    [
      `INSERT INTO inbound_events (provider, event_id, event_type, payload, subject) VALUES ('livekit', 'EV_types', 'room_started', $1, $2)`,
      [JSON.stringify({ event: 'room_started', room: { name: 'x' } }), 'x'],
    ],
    [
      `INSERT INTO outbox_jobs (queue, job_name, job_id, payload) VALUES ('translator-presence', 'translator.dispatch', 'job-types', $1)`,
      [JSON.stringify({ roomId, generation: 1 })],
    ],
    [
      `INSERT INTO transcript_segments (organization_id, room_id, segment_id, participant_identity, language, text, started_at, ended_at)
       VALUES ($1, $2, 'seg-1', 'alice', 'en', 'hello', $3, $3)`,
      [org, roomId, at],
    ],
    [
      `INSERT INTO translation_events (event_key, organization_id, room_id, type, occurred_at) VALUES ('types-joined', $1, $2, 'joined', $3)`,
      [org, roomId, at],
    ],
    [
      `WITH e AS (INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES ($1, 'https://example.com/hook', 'whsec_x') RETURNING id),
            ev AS (INSERT INTO webhook_events (id, organization_id, type, body) VALUES ('evt_types', $1, 'room.started', '{}') RETURNING seq)
       INSERT INTO webhook_deliveries (endpoint_id, organization_id, event_seq, max_attempts) SELECT e.id, $1, ev.seq, 8 FROM e, ev`,
      [org],
    ],
  ];
  for (const [text, values] of statements) await db.query(text, values);
}

/**
 * The generated row types tell the truth about what the pool returns (docs/decisions.md "Types from
 * the schema"): every column of every table that holds a bigint, numeric or JSON column, read through
 * the application's pool and parsers, has the JavaScript type pgtyped declares for it with the
 * project's settings. The tables are found in the migrated schema, so a new one is checked too (and
 * this test asks for a row of it).
 */
describe('generated row types at run time', () => {
  let url: string;
  let db: DataSource;
  let database: DatabaseClient;

  beforeAll(async () => {
    ({ url, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    await insertOneRowEach(db);
  });

  afterAll(async () => closeMediumDatabase(url, db));

  it('match the values the pool returns, column by column', async () => {
    const tables = await tablesToCheck(database);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['connections', 'credit_accounts', 'inbound_events', 'rooms']));
    const { columns, aliases } = declaredTypes(tables);

    const mismatches: string[] = [];
    for (const table of tables) {
      // The JSON columns also as text: a parsed value must be what that text says (the type Json admits a string).
      const [row] = await rawRows<Record<string, unknown>>(
        database,
        `SELECT ${['*', ...table.jsonColumns.map((c) => `"${c}"::text AS "${c} as text"`)].join(', ')} FROM "${table.name}" LIMIT 1`,
      );
      if (!row) {
        mismatches.push(`${table.name}: no row to read (insert one in insertOneRowEach)`);
        continue;
      }
      for (const column of table.columns) {
        const declared = columns.get(table.name)?.get(column);
        if (declared === undefined) mismatches.push(`${table.name}.${column}: no generated type`);
        else if (!fits(row[column], declared, aliases)) {
          mismatches.push(`${table.name}.${column}: declared ${declared}, the pool returned ${describeValue(row[column])}`);
        }
      }
      for (const column of table.jsonColumns) {
        const text = row[`${column} as text`];
        if (JSON.stringify(row[column]) !== JSON.stringify(JSON.parse(String(text)))) {
          mismatches.push(`${table.name}.${column}: holds ${String(text)}, the pool returned ${describeValue(row[column])}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000);
});
