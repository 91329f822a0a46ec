import type { TranscriptSegment } from '@app/domain/transcripts';
import { Injectable } from '@nestjs/common';
import { Coalescer } from '../../common/batching/coalescer';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { prepared, sql, withNulls } from '../../database/typed-sql';
import type {
  IAllQuery,
  IDeleteExpiredQuery,
  IDueToCloseQuery,
  IEraseQuery,
  IPageQuery,
  IPageResult,
  IRoomQuery,
  ISaveSettingsQuery,
  ISettingsQuery,
  IStoreSegmentsQuery,
  ISummaryQuery,
  ISummaryResult,
} from './transcripts.repository.types';

export interface TranscriptSettings {
  store: boolean;
  retentionDays: number;
}

export const DEFAULT_TRANSCRIPT_SETTINGS: TranscriptSettings = { store: true, retentionDays: 30 };

/** One reported segment, as the translator sent it: a transcript segment of a room, with its stable id. */
export interface SegmentRecord extends TranscriptSegment {
  roomId: string;
  /** The room's LiveKit name as the reporter knows it; empty when it knows only the room id (file reports). */
  livekitRoom: string;
  segmentId: string;
  /** Simultaneous mode: the words sent to translation while it was said, and those the final recognition revised. */
  committed?: CommittedWords | null;
}

export interface CommittedWords {
  text: string;
  revisedWords: string[];
}

/** A stored segment as the API shows it. */
export interface StoredSegment {
  id: string;
  participant_identity: string;
  language: string;
  text: string;
  translation: { language: string; text: string } | null;
  started_at: Date;
  ended_at: Date;
  committed: { text: string; revised_words: string[]; revised: boolean } | null;
}

/** The room a transcript belongs to. */
export interface TranscriptRoom {
  id: string;
  name: string;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** What a closed transcript holds: `transcript.ready` says it with its room. */
export type TranscriptSummary = ISummaryResult;

const SETTINGS = sql<ISettingsQuery>`SELECT store, retention_days FROM transcript_settings WHERE organization_id = $organizationId!`;

const SAVE_SETTINGS = sql<ISaveSettingsQuery>`INSERT INTO transcript_settings (organization_id, store, retention_days) VALUES ($organizationId!, $store!, $retentionDays!)
  ON CONFLICT (organization_id) DO UPDATE SET store = EXCLUDED.store, retention_days = EXCLUDED.retention_days, updated_at = now()`;

/**
 * Stores segments of open transcripts once per (room, segment id). The room row is read FOR SHARE:
 * closing a transcript (an UPDATE of that row) waits for the inserts already under way and every
 * later insert sees it closed, so no segment lands after `transcript.ready` counted them. Nothing
 * is written for an organization that turned storing off. The revised words travel as jsonb: an array
 * of text arrays cannot be passed as one parameter.
 */
const STORE_SEGMENTS = sql<IStoreSegmentsQuery>`INSERT INTO transcript_segments (organization_id, room_id, segment_id, participant_identity, language, text,
                                     translation_language, translation_text, started_at, ended_at, committed_text, revised_words)
         SELECT r.organization_id, r.id, s.segment_id, s.identity, s.language, s.text, s.translation_language, s.translation_text, s.started_at, s.ended_at,
                s.committed_text, CASE WHEN s.revised_words IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(s.revised_words)) END
           FROM unnest($roomIds!::uuid[], $livekitRooms!::text[], $segmentIds!::text[], $identities!::text[], $languages!::text[], $texts!::text[],
                       $translationLanguages!::text[], $translationTexts!::text[], $startedAts!::timestamptz[], $endedAts!::timestamptz[],
                       $committedTexts!::text[], $revisedWords!::jsonb[])
                  AS s(room_id, livekit_room, segment_id, identity, language, text, translation_language, translation_text, started_at, ended_at,
                       committed_text, revised_words)
           JOIN rooms r ON r.id = s.room_id AND (s.livekit_room = '' OR r.livekit_name = s.livekit_room)
           LEFT JOIN transcript_settings t ON t.organization_id = r.organization_id
          WHERE r.transcript_closed_at IS NULL AND coalesce(t.store, true)
            FOR SHARE OF r
         ON CONFLICT (room_id, segment_id) DO NOTHING
         RETURNING room_id, segment_id`;

const ROOM = sql<IRoomQuery>`SELECT r.id, r.name, r.started_at, r.ended_at FROM rooms r WHERE r.id = $roomId! AND r.organization_id = $organizationId!`;

const PAGE = sql<IPageQuery>`SELECT segment_id, participant_identity, language, text, translation_language, translation_text, started_at, ended_at,
       committed_text, revised_words
  FROM transcript_segments WHERE room_id = $roomId! AND organization_id = $organizationId!
  ORDER BY started_at, segment_id LIMIT $limit!::bigint OFFSET $offset!::bigint`;

const ALL = sql<IAllQuery>`SELECT participant_identity, language, text, translation_language, translation_text,
       (extract(epoch FROM started_at) * 1000)::float8 AS "started_ms!", (extract(epoch FROM ended_at) * 1000)::float8 AS "ended_ms!"
  FROM transcript_segments WHERE room_id = $roomId! AND organization_id = $organizationId! ORDER BY started_at, segment_id`;

const ERASE = sql<IEraseQuery>`DELETE FROM transcript_segments WHERE room_id = $roomId! AND organization_id = $organizationId!`;

/** The age index bounds the scan: no retention is under a day. */
const DELETE_EXPIRED = sql<IDeleteExpiredQuery>`DELETE FROM transcript_segments WHERE id IN (
  SELECT s.id FROM transcript_segments s LEFT JOIN transcript_settings t ON t.organization_id = s.organization_id
   WHERE s.started_at < now() - interval '1 day'
     AND s.started_at < now() - make_interval(days => coalesce(t.retention_days, $defaultRetentionDays!))
   LIMIT $limit!)`;

const DUE_TO_CLOSE = sql<IDueToCloseQuery>`SELECT r.id FROM rooms r
 WHERE r.status = 'ended' AND r.transcript_closed_at IS NULL
   AND (r.ended_at <= now() - make_interval(secs => $graceSeconds!)
        OR (SELECT count(*) FILTER (WHERE e.type = 'left') >= count(*) FILTER (WHERE e.type = 'joined')
              FROM translation_events e WHERE e.room_id = r.id AND e.type IN ('joined', 'left')))
 ORDER BY r.ended_at LIMIT $limit!`;

/** A count and an ARRAY(…) are never null (no segments: 0 and an empty array). */
const SUMMARY = sql<ISummaryQuery>`SELECT count(*)::int AS "segments!",
       ARRAY(SELECT DISTINCT l FROM transcript_segments s2,
                    unnest(ARRAY[s2.language, s2.translation_language]) AS l
              WHERE s2.room_id = $roomId! AND l IS NOT NULL ORDER BY l) AS "languages!"
  FROM transcript_segments s WHERE s.room_id = $roomId!`;

/** Statements the hot paths run prepared. */
const STORE_SEGMENTS_PREPARED = prepared('transcript_store_segments', STORE_SEGMENTS);
const PAGE_PREPARED = prepared('transcript_page', PAGE);
const ALL_PREPARED = prepared('transcript_all', ALL);

const toSegment = (row: IPageResult): StoredSegment => ({
  id: row.segment_id,
  participant_identity: row.participant_identity,
  language: row.language,
  text: row.text,
  translation: row.translation_language === null ? null : { language: row.translation_language, text: row.translation_text ?? '' },
  started_at: row.started_at,
  ended_at: row.ended_at,
  committed:
    row.committed_text === null
      ? null
      : { text: row.committed_text, revised_words: row.revised_words ?? [], revised: (row.revised_words ?? []).length > 0 },
});

interface PendingSegment {
  record: SegmentRecord;
  stored: boolean;
}

@Injectable()
export class TranscriptsRepository {
  /** Segments stored at the same time share one insert (up to 500, two inserts in flight). */
  private readonly writes = new Coalescer<PendingSegment>(
    async (batch) => {
      const stored = await this.database.oneStatement((tx) =>
        this.store(
          batch.map((pending) => pending.record),
          tx,
        ),
      );
      for (const pending of batch) pending.stored = stored.has(`${pending.record.roomId} ${pending.record.segmentId}`);
    },
    { maxBatch: 500, parallel: 2 },
  );

  constructor(private readonly database: DatabaseClient) {}

  async settings(organizationId: string, sql: Sql = this.database): Promise<TranscriptSettings> {
    const [row] = await sql.rows(SETTINGS, { organizationId });
    return row ? { store: row.store, retentionDays: row.retention_days } : DEFAULT_TRANSCRIPT_SETTINGS;
  }

  async saveSettings(organizationId: string, settings: TranscriptSettings, tx: Tx): Promise<void> {
    await tx.rows(SAVE_SETTINGS, { organizationId, ...settings });
  }

  /** Stores the segment unless it is stored already, in its own statement's commit; true when it wrote it. */
  async storeSegment(record: SegmentRecord): Promise<boolean> {
    const pending: PendingSegment = { record, stored: false };
    await this.writes.submit(pending);
    return pending.stored;
  }

  /** Stores the segments not stored yet; returns the keys (`room_id segment_id`) of those it wrote. */
  async store(segments: SegmentRecord[], tx: Tx): Promise<Set<string>> {
    if (segments.length === 0) return new Set();
    const column = <T>(pick: (segment: SegmentRecord) => T) => segments.map(pick);
    const rows = await tx.rows(STORE_SEGMENTS_PREPARED, {
      roomIds: column((s) => s.roomId),
      livekitRooms: column((s) => s.livekitRoom),
      segmentIds: column((s) => s.segmentId),
      identities: column((s) => s.participantIdentity),
      languages: column((s) => s.language),
      texts: column((s) => s.text),
      // A null element: a segment without translation.
      translationLanguages: withNulls(column((s) => s.translation?.language ?? null)),
      translationTexts: withNulls(column((s) => s.translation?.text ?? null)),
      startedAts: column((s) => s.startedAt),
      endedAts: column((s) => s.endedAt),
      committedTexts: withNulls(column((s) => s.committed?.text ?? null)),
      revisedWords: withNulls(column((s) => (s.committed ? JSON.stringify(s.committed.revisedWords) : null))),
    });
    return new Set(rows.map((row) => `${row.room_id} ${row.segment_id}`));
  }

  /** The room, when it is the organization's. */
  async room(organizationId: string, roomId: string, sql: Sql = this.database): Promise<TranscriptRoom | null> {
    const [row] = await sql.rows(ROOM, { roomId, organizationId });
    return row ? { id: row.id, name: row.name, startedAt: row.started_at, endedAt: row.ended_at } : null;
  }

  /** A page of the room's segments in spoken order (start, then id). */
  async page(
    organizationId: string,
    roomId: string,
    page: { limit: number; offset: number },
    sql: Sql = this.database,
  ): Promise<StoredSegment[]> {
    const rows = await sql.rows(PAGE_PREPARED, { roomId, organizationId, ...page });
    return rows.map(toSegment);
  }

  /**
   * Every segment of the room in spoken order, for the exports: times as epoch milliseconds (a
   * 2-hour room has thousands of segments, and parsing each timestamp's text is most of reading them).
   */
  async all(organizationId: string, roomId: string, sql: Sql = this.database): Promise<TranscriptSegment[]> {
    const rows = await sql.rows(ALL_PREPARED, { roomId, organizationId });
    return rows.map((row) => ({
      participantIdentity: row.participant_identity,
      language: row.language,
      text: row.text,
      translation: row.translation_language === null ? null : { language: row.translation_language, text: row.translation_text ?? '' },
      startedAt: new Date(row.started_ms),
      endedAt: new Date(row.ended_ms),
    }));
  }

  /** Erases the room's stored segments; returns how many. */
  async erase(organizationId: string, roomId: string, tx: Tx): Promise<number> {
    return tx.count(ERASE, { roomId, organizationId });
  }

  /**
   * Deletes up to `limit` segments older than their organization's retention (30 days without
   * settings); returns how many.
   */
  async deleteExpired(limit: number, tx: Tx): Promise<number> {
    return tx.count(DELETE_EXPIRED, { limit, defaultRetentionDays: DEFAULT_TRANSCRIPT_SETTINGS.retentionDays });
  }

  /**
   * Ended rooms whose transcript is still open and is due to close: the translator has left (as
   * many `left` reports as `joined` ones) or the room ended at least `graceSeconds` ago.
   */
  async dueToClose(graceSeconds: number, limit: number, sql: Sql = this.database): Promise<string[]> {
    const rows = await sql.rows(DUE_TO_CLOSE, { graceSeconds, limit });
    return rows.map((row) => row.id);
  }

  /**
   * What a closed transcript holds. Read after its room's transcript was closed, in the same
   * transaction: every insert that read the room open has committed by then.
   */
  async summary(roomId: string, sql: Sql): Promise<TranscriptSummary> {
    const [summary] = await sql.rows(SUMMARY, { roomId });
    return summary;
  }
}
