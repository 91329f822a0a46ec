// Longer than ~300 lines on purpose: the glossaries aggregate's statements (glossaries, their entries,
// rooms' lists, the revision), each written out whole (a typed statement takes no shared SQL fragment).
import type { GlossaryEntry } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type {
  IBumpRevisionQuery,
  ICountQuery,
  ICreateQuery,
  ICreateResult,
  IDeleteEntryQuery,
  IDeleteQuery,
  IDuplicateCandidatesQuery,
  IEntriesQuery,
  IEntryPageQuery,
  IEntryPageResult,
  IGetQuery,
  IInsertEntriesQuery,
  IInsertEntryQuery,
  IInUseQuery,
  ILeaveRoomsQuery,
  ILockOrganizationQuery,
  ILockQuery,
  IOwnedQuery,
  IPageQuery,
  IRecountQuery,
  IRemoveEntriesQuery,
  IRoomListQuery,
  ISetCountsQuery,
  ISetRoomListQuery,
  IUpdateQuery,
} from './glossaries.repository.types';

/** A glossary as the API shows it. */
export type GlossaryRow = ICreateResult;

/** An entry as the API shows it (`terms` and `sounds_like` as stored: validated objects). */
export type GlossaryEntryRow = Omit<IEntryPageResult, 'terms' | 'sounds_like'> & {
  terms: Record<string, string>;
  sounds_like: Record<string, string[]>;
};

/** An entry to store: the validated entry and its terms' matching keys (language → folded key). */
export interface NewGlossaryEntry {
  entry: GlossaryEntry;
  termKeys: Record<string, string>;
}

/** The glossaries a room applies now, in priority order, with their entries oldest first. */
export interface GlossariesInUse {
  /** The organization's glossary revision the read saw (0 before its first change). */
  revision: number;
  glossaries: { id: string; entries: GlossaryEntry[] }[];
}

/** A room's list: its own (null when never set) and the organization's defaults, newest first. */
export interface RoomGlossaryList {
  own: string[] | null;
  defaults: string[];
}

// Takes the row lock of the organization's revision without changing it: an organization's glossary
// changes run one at a time from here to their commit (limits, duplicates and counts hold).
const LOCK_ORGANIZATION = sql<ILockOrganizationQuery>`INSERT INTO glossary_revisions (organization_id, revision)
  VALUES ($organizationId!, 0)
  ON CONFLICT (organization_id) DO UPDATE SET revision = glossary_revisions.revision RETURNING revision`;

const BUMP_REVISION = sql<IBumpRevisionQuery>`INSERT INTO glossary_revisions (organization_id, revision)
  VALUES ($organizationId!, 1)
  ON CONFLICT (organization_id) DO UPDATE SET revision = glossary_revisions.revision + 1 RETURNING revision`;

const COUNT = sql<ICountQuery>`SELECT count(*)::int AS "count!" FROM glossaries WHERE organization_id = $organizationId!`;

const CREATE = sql<ICreateQuery>`INSERT INTO glossaries (organization_id, name, is_default)
  VALUES ($organizationId!, $name!, $isDefault!)
  RETURNING id, name, is_default AS "default", entry_count, languages, created_at, updated_at`;

/** Newest first at the precision shown (milliseconds), then id (index `glossaries_newest`). */
const PAGE = sql<IPageQuery>`SELECT id, name, is_default AS "default", entry_count, languages, created_at, updated_at
  FROM glossaries WHERE organization_id = $organizationId!
  ORDER BY date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC LIMIT $limit! OFFSET $offset!`;

const GET = sql<IGetQuery>`SELECT id, name, is_default AS "default", entry_count, languages, created_at, updated_at
  FROM glossaries WHERE id = $glossaryId! AND organization_id = $organizationId!`;

const LOCK = sql<ILockQuery>`SELECT id, is_default, entry_count FROM glossaries
  WHERE id = $glossaryId! AND organization_id = $organizationId! FOR UPDATE`;

const UPDATE = sql<IUpdateQuery>`UPDATE glossaries
  SET name = coalesce($name, name), is_default = coalesce($isDefault, is_default), updated_at = clock_timestamp()
  WHERE id = $glossaryId! AND organization_id = $organizationId!
  RETURNING id, name, is_default AS "default", entry_count, languages, created_at, updated_at`;

const DELETE = sql<IDeleteQuery>`DELETE FROM glossaries WHERE id = $glossaryId! AND organization_id = $organizationId!
  RETURNING is_default`;

const LEAVE_ROOMS = sql<ILeaveRoomsQuery>`UPDATE room_glossaries SET glossary_ids = array_remove(glossary_ids, $glossaryId!::uuid)
  WHERE organization_id = $organizationId! AND glossary_ids @> ARRAY[$glossaryId!::uuid]`;

/** Oldest first: the order they were added in (index `glossary_entries_oldest`). */
const ENTRY_PAGE = sql<IEntryPageQuery>`SELECT id, terms, do_not_translate, case_sensitive, sounds_like, created_at
  FROM glossary_entries WHERE glossary_id = $glossaryId! AND organization_id = $organizationId!
  ORDER BY position LIMIT $limit! OFFSET $offset!`;

const ENTRIES = sql<IEntriesQuery>`SELECT terms, do_not_translate, case_sensitive, sounds_like
  FROM glossary_entries WHERE glossary_id = $glossaryId! AND organization_id = $organizationId!
  ORDER BY position`;

// The entries sharing a folded key with the new one in some language: what the duplicate rule compares it with.
const DUPLICATE_CANDIDATES = sql<IDuplicateCandidatesQuery>`SELECT terms, do_not_translate, case_sensitive, sounds_like
  FROM glossary_entries
  WHERE glossary_id = $glossaryId! AND organization_id = $organizationId! AND term_keys @> ANY($probes!::jsonb[])
  ORDER BY position`;

const INSERT_ENTRY = sql<IInsertEntryQuery>`INSERT INTO glossary_entries
    (glossary_id, organization_id, terms, term_keys, do_not_translate, case_sensitive, sounds_like)
  VALUES ($glossaryId!, $organizationId!, $terms!::jsonb, $termKeys!::jsonb, $doNotTranslate!, $caseSensitive!, $soundsLike!::jsonb)
  RETURNING id, terms, do_not_translate, case_sensitive, sounds_like, created_at`;

// Every entry in one statement, from one JSON array, in the order sent (their positions follow it).
const INSERT_ENTRIES = sql<IInsertEntriesQuery>`INSERT INTO glossary_entries
    (glossary_id, organization_id, terms, term_keys, do_not_translate, case_sensitive, sounds_like)
  SELECT $glossaryId!, $organizationId!, e.terms, e.term_keys, e.do_not_translate, e.case_sensitive, e.sounds_like
  FROM ROWS FROM (jsonb_to_recordset($entries!::jsonb)
         AS (terms jsonb, term_keys jsonb, do_not_translate boolean, case_sensitive boolean, sounds_like jsonb))
       WITH ORDINALITY AS e(terms, term_keys, do_not_translate, case_sensitive, sounds_like, ord)
  ORDER BY e.ord`;

const REMOVE_ENTRIES = sql<IRemoveEntriesQuery>`DELETE FROM glossary_entries
  WHERE glossary_id = $glossaryId! AND organization_id = $organizationId!`;

const DELETE_ENTRY = sql<IDeleteEntryQuery>`DELETE FROM glossary_entries
  WHERE id = $entryId! AND glossary_id = $glossaryId! AND organization_id = $organizationId!`;

const SET_COUNTS = sql<ISetCountsQuery>`UPDATE glossaries
  SET entry_count = $entryCount!, languages = $languages!::text[], updated_at = clock_timestamp()
  WHERE id = $glossaryId! AND organization_id = $organizationId!`;

// Counted again from the entries (at most 10,000, on their index): always right, whatever changed.
const RECOUNT = sql<IRecountQuery>`UPDATE glossaries SET
    entry_count = (SELECT count(*) FROM glossary_entries WHERE glossary_id = $glossaryId!),
    languages = ARRAY(SELECT DISTINCT code COLLATE "C" FROM glossary_entries e, jsonb_object_keys(e.terms) AS code
                      WHERE e.glossary_id = $glossaryId! ORDER BY 1),
    updated_at = clock_timestamp()
  WHERE id = $glossaryId! AND organization_id = $organizationId!`;

const OWNED = sql<IOwnedQuery>`SELECT id FROM glossaries WHERE organization_id = $organizationId! AND id = ANY($glossaryIds!::uuid[])`;

// The room (read only: rooms are written by the rooms aggregate), its own list and the defaults.
const ROOM_LIST = sql<IRoomListQuery>`SELECT rg.glossary_ids AS "own?",
    ARRAY(SELECT g.id FROM glossaries g WHERE g.organization_id = $organizationId! AND g.is_default
          ORDER BY date_trunc('milliseconds', g.created_at AT TIME ZONE 'UTC') DESC, g.id DESC) AS "defaults!"
  FROM rooms r LEFT JOIN room_glossaries rg ON rg.room_id = r.id
  WHERE r.id = $roomId! AND r.organization_id = $organizationId!`;

const SET_ROOM_LIST = sql<ISetRoomListQuery>`INSERT INTO room_glossaries (room_id, organization_id, glossary_ids)
  SELECT r.id, r.organization_id, $glossaryIds!::uuid[] FROM rooms r WHERE r.id = $roomId! AND r.organization_id = $organizationId!
  ON CONFLICT (room_id) DO UPDATE SET glossary_ids = EXCLUDED.glossary_ids`;

// One statement, so the revision, the rooms' lists and the entries come from one snapshot. Each
// glossary's entries come once however many of the rooms apply it.
const IN_USE = sql<IInUseQuery>`WITH room AS (
    SELECT r.id, rg.glossary_ids FROM rooms r LEFT JOIN room_glossaries rg ON rg.room_id = r.id
    WHERE r.id = ANY($roomIds!::uuid[]) AND r.organization_id = $organizationId!
  ), defaults AS (
    SELECT coalesce(array_agg(g.id ORDER BY date_trunc('milliseconds', g.created_at AT TIME ZONE 'UTC') DESC, g.id DESC), '{}') AS ids
    FROM glossaries g WHERE g.organization_id = $organizationId! AND g.is_default
  ), chosen AS (
    SELECT room.id AS room_id, u.id, u.priority
    FROM room, defaults, unnest(coalesce(room.glossary_ids, defaults.ids)) WITH ORDINALITY AS u(id, priority)
    JOIN glossaries g ON g.id = u.id AND g.organization_id = $organizationId!
  )
  SELECT coalesce((SELECT revision FROM glossary_revisions WHERE organization_id = $organizationId!), 0) AS "revision!",
    coalesce((
      SELECT json_object_agg(room.id, coalesce((SELECT json_agg(c.id ORDER BY c.priority) FROM chosen c WHERE c.room_id = room.id), '[]'::json))
      FROM room
    ), '{}'::json) AS "rooms!",
    coalesce((
      SELECT json_object_agg(g.id, (
          SELECT coalesce(json_agg(json_build_object('terms', e.terms, 'do_not_translate', e.do_not_translate,
                   'case_sensitive', e.case_sensitive, 'sounds_like', e.sounds_like) ORDER BY e.position), '[]'::json)
          FROM glossary_entries e WHERE e.glossary_id = g.id))
      FROM glossaries g WHERE g.id IN (SELECT id FROM chosen)
    ), '{}'::json) AS "glossaries!"`;

interface StoredEntry {
  terms: Record<string, string>;
  do_not_translate: boolean;
  case_sensitive: boolean;
  sounds_like: Record<string, string[]>;
}

const toEntry = (row: StoredEntry): GlossaryEntry => ({
  terms: row.terms,
  doNotTranslate: row.do_not_translate,
  caseSensitive: row.case_sensitive,
  soundsLike: row.sounds_like,
});

/** `glossaries`, `glossary_entries`, `room_glossaries` and `glossary_revisions`: an organization's glossaries. */
@Injectable()
export class GlossariesRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Holds the organization's glossary changes back until this transaction ends (run first in each change). */
  async lockOrganization(organizationId: string, tx: Tx): Promise<void> {
    await tx.rows(LOCK_ORGANIZATION, { organizationId });
  }

  /** The organization's revision, one more; returns it. */
  async bumpRevision(organizationId: string, tx: Tx): Promise<number> {
    const [row] = await tx.rows(BUMP_REVISION, { organizationId });
    return row.revision;
  }

  async count(organizationId: string, sql: Sql = this.database): Promise<number> {
    const [row] = await sql.rows(COUNT, { organizationId });
    return row.count;
  }

  async create(organizationId: string, name: string, isDefault: boolean, tx: Tx): Promise<GlossaryRow> {
    const [row] = await tx.rows(CREATE, { organizationId, name, isDefault });
    return row;
  }

  /** The organization's glossaries, newest first; `limit` rows from `offset`. */
  async page(organizationId: string, limit: number, offset: number, sql: Sql = this.database): Promise<GlossaryRow[]> {
    return sql.rows(PAGE, { organizationId, limit, offset });
  }

  async get(glossaryId: string, organizationId: string, sql: Sql = this.database): Promise<GlossaryRow | undefined> {
    const [row] = await sql.rows(GET, { glossaryId, organizationId });
    return row;
  }

  /** Locks the glossary for this transaction; undefined when the organization has no such glossary. */
  async lock(glossaryId: string, organizationId: string, tx: Tx): Promise<{ isDefault: boolean; entryCount: number } | undefined> {
    const [row] = await tx.rows(LOCK, { glossaryId, organizationId });
    return row && { isDefault: row.is_default, entryCount: row.entry_count };
  }

  async update(
    glossaryId: string,
    organizationId: string,
    changes: { name: string | null; isDefault: boolean | null },
    tx: Tx,
  ): Promise<GlossaryRow | undefined> {
    const [row] = await tx.rows(UPDATE, { glossaryId, organizationId, ...changes });
    return row;
  }

  /** Deletes the glossary and its entries; undefined when there is no such glossary, else whether it was a default. */
  async delete(glossaryId: string, organizationId: string, tx: Tx): Promise<{ wasDefault: boolean } | undefined> {
    const [row] = await tx.rows(DELETE, { glossaryId, organizationId });
    return row && { wasDefault: row.is_default };
  }

  /** Takes the glossary out of every room's own list; returns how many rooms had it. */
  async leaveRooms(glossaryId: string, organizationId: string, tx: Tx): Promise<number> {
    return tx.count(LEAVE_ROOMS, { glossaryId, organizationId });
  }

  /** The glossary's entries, oldest first; `limit` rows from `offset`. */
  async entryPage(glossaryId: string, organizationId: string, limit: number, offset: number, sql: Sql = this.database) {
    return sql.rows<IEntryPageQuery, GlossaryEntryRow>(ENTRY_PAGE, { glossaryId, organizationId, limit, offset });
  }

  /** Every entry of the glossary, oldest first. */
  async entries(glossaryId: string, organizationId: string, sql: Sql = this.database): Promise<GlossaryEntry[]> {
    const rows = await sql.rows<IEntriesQuery, StoredEntry & IEntriesQuery['result']>(ENTRIES, { glossaryId, organizationId });
    return rows.map(toEntry);
  }

  /** The entries holding, in some language, one of these folded term keys (language → key). */
  async duplicateCandidates(
    glossaryId: string,
    organizationId: string,
    termKeys: Record<string, string>,
    sql: Sql = this.database,
  ): Promise<GlossaryEntry[]> {
    const probes = Object.entries(termKeys).map(([code, key]) => JSON.stringify({ [code]: key }));
    const rows = await sql.rows<IDuplicateCandidatesQuery, StoredEntry & IDuplicateCandidatesQuery['result']>(DUPLICATE_CANDIDATES, {
      glossaryId,
      organizationId,
      probes,
    });
    return rows.map(toEntry);
  }

  async insertEntry(glossaryId: string, organizationId: string, added: NewGlossaryEntry, tx: Tx) {
    const { entry, termKeys } = added;
    const [row] = await tx.rows<IInsertEntryQuery, GlossaryEntryRow>(INSERT_ENTRY, {
      glossaryId,
      organizationId,
      terms: JSON.stringify(entry.terms),
      termKeys: JSON.stringify(termKeys),
      doNotTranslate: entry.doNotTranslate,
      caseSensitive: entry.caseSensitive,
      soundsLike: JSON.stringify(entry.soundsLike),
    });
    return row;
  }

  /** Adds the entries in one statement, in this order. */
  async insertEntries(glossaryId: string, organizationId: string, added: readonly NewGlossaryEntry[], tx: Tx) {
    if (added.length === 0) return;
    const entries = JSON.stringify(
      added.map(({ entry, termKeys }) => ({
        terms: entry.terms,
        term_keys: termKeys,
        do_not_translate: entry.doNotTranslate,
        case_sensitive: entry.caseSensitive,
        sounds_like: entry.soundsLike,
      })),
    );
    await tx.count(INSERT_ENTRIES, { glossaryId, organizationId, entries });
  }

  async removeEntries(glossaryId: string, organizationId: string, tx: Tx): Promise<void> {
    await tx.count(REMOVE_ENTRIES, { glossaryId, organizationId });
  }

  /** False when the glossary has no such entry. */
  async deleteEntry(glossaryId: string, entryId: string, organizationId: string, tx: Tx): Promise<boolean> {
    return (await tx.count(DELETE_ENTRY, { glossaryId, entryId, organizationId })) > 0;
  }

  /** Sets the glossary's count and languages (sorted codes) as the caller computed them. */
  async setCounts(glossaryId: string, organizationId: string, entryCount: number, languages: string[], tx: Tx) {
    await tx.count(SET_COUNTS, { glossaryId, organizationId, entryCount, languages });
  }

  /** Counts the glossary's entries and languages again. */
  async recount(glossaryId: string, organizationId: string, tx: Tx): Promise<void> {
    await tx.count(RECOUNT, { glossaryId, organizationId });
  }

  /** Which of these ids are the organization's glossaries. */
  async owned(organizationId: string, glossaryIds: string[], sql: Sql = this.database): Promise<Set<string>> {
    if (glossaryIds.length === 0) return new Set();
    return new Set((await sql.rows(OWNED, { organizationId, glossaryIds })).map((row) => row.id));
  }

  /** The room's list and the organization's defaults; undefined when the organization has no such room. */
  async roomList(roomId: string, organizationId: string, sql: Sql = this.database): Promise<RoomGlossaryList | undefined> {
    const [row] = await sql.rows(ROOM_LIST, { roomId, organizationId });
    return row && { own: row.own, defaults: row.defaults };
  }

  /** Sets the room's own list; false when the organization has no such room. */
  async setRoomList(roomId: string, organizationId: string, glossaryIds: string[], tx: Tx): Promise<boolean> {
    return (await tx.count(SET_ROOM_LIST, { roomId, organizationId, glossaryIds })) > 0;
  }

  /**
   * The glossaries the room applies now, in priority order (its own list once set, else the
   * organization's defaults newest first), each with its entries oldest first, and the revision they
   * are at: one statement, one snapshot. Undefined when the organization has no such room.
   */
  async glossariesInUse(organizationId: string, roomId: string, sql: Sql = this.database): Promise<GlossariesInUse | undefined> {
    return (await this.glossariesInUseByRoom(organizationId, [roomId], sql)).get(roomId);
  }

  /** `glossariesInUse` for several rooms of the organization in one statement; a room it does not have is absent. */
  async glossariesInUseByRoom(organizationId: string, roomIds: string[], sql: Sql = this.database): Promise<Map<string, GlossariesInUse>> {
    const [row] = await sql.rows(IN_USE, { organizationId, roomIds });
    const rooms = row.rooms as Record<string, string[]>;
    const entries = new Map(
      Object.entries(row.glossaries as unknown as Record<string, StoredEntry[]>).map(([id, stored]) => [id, stored.map(toEntry)] as const),
    );
    const revision = row.revision;
    return new Map(
      Object.entries(rooms).map(([roomId, ids]) => [
        roomId,
        { revision, glossaries: ids.map((id) => ({ id, entries: entries.get(id) ?? [] })) },
      ]),
    );
  }
}
