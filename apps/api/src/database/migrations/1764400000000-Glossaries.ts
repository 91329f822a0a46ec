import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Glossaries (extensions.md "Glossaries"): an organization's glossaries, their entries, a room's own
 * list, and the organization's glossary revision.
 * - `glossaries` keeps `entry_count` and `languages` (sorted codes its entries use) up to date in the
 *   transaction that changes its entries; pages are newest first at millisecond precision, then id.
 * - `glossary_entries.position` orders a glossary's entries oldest first (one sequence: a PUT's rows
 *   take it in the order sent). `term_keys` holds each term's folded matching key (term-text.ts
 *   `termKey`) so that the duplicate check of one new entry reads only the entries sharing a key.
 * - `room_glossaries`: a room's own list in priority order; no row = not set (the organization's
 *   defaults apply), an empty array = none.
 * - `glossary_revisions`: bumped by every transaction that changes which entries a room applies; its
 *   row lock also serializes an organization's glossary changes.
 */
export class Glossaries1764400000000 implements MigrationInterface {
  name = 'Glossaries1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE glossaries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        name varchar(120) NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        entry_count integer NOT NULL DEFAULT 0 CHECK (entry_count >= 0),
        languages text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(
      `CREATE INDEX glossaries_newest ON glossaries
         (organization_id, date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX glossaries_defaults ON glossaries (organization_id) WHERE is_default`);
    await q.query(`
      CREATE TABLE glossary_entries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        glossary_id uuid NOT NULL REFERENCES glossaries(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        position bigint GENERATED ALWAYS AS IDENTITY,
        terms jsonb NOT NULL,
        term_keys jsonb NOT NULL,
        do_not_translate boolean NOT NULL DEFAULT false,
        case_sensitive boolean NOT NULL DEFAULT false,
        sounds_like jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX glossary_entries_oldest ON glossary_entries (glossary_id, position)`);
    await q.query(`
      CREATE TABLE room_glossaries (
        room_id uuid PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        glossary_ids uuid[] NOT NULL CHECK (cardinality(glossary_ids) <= 5)
      )`);
    await q.query(`CREATE INDEX room_glossaries_glossary ON room_glossaries USING gin (glossary_ids)`);
    await q.query(`
      CREATE TABLE glossary_revisions (
        organization_id uuid PRIMARY KEY,
        revision bigint NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE glossary_revisions`);
    await q.query(`DROP TABLE room_glossaries`);
    await q.query(`DROP TABLE glossary_entries`);
    await q.query(`DROP TABLE glossaries`);
  }
}
