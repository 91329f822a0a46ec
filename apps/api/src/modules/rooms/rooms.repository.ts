// Longer than ~300 lines on purpose: the rooms aggregate's ~22 statements, each written out whole (a
// typed statement takes no shared SQL fragment, docs/decisions.md "Types from the schema").
import type { RoomStatus, StreamingMode } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, prepared, sql } from '../../database/typed-sql';
import {
  type ClosedTranscriptRoom,
  type ParticipantUsageRow,
  type RoomBody,
  type RoomTotalsDelta,
  type RoomRow,
  type RoomViewRow,
} from './room-rows';
import type {
  IActivateQuery,
  IAddToTotalsQuery,
  IAdmissionLockQuery,
  ICloseTranscriptQuery,
  IEndQuery,
  IEndStateQuery,
  IEndStateResult,
  IFlipTranslatorPresenceQuery,
  IInsertRoomsQuery,
  ILiveNameTakenQuery,
  ILiveRoomIdQuery,
  ILiveRoomQuery,
  ILockByIdQuery,
  ILiveForReconcileQuery,
  ILockByLivekitNamesQuery,
  IMarkSeenQuery,
  IMarkSettledQuery,
  IParticipantsQuery,
  IRoomPageQuery,
  IRoomViewQuery,
  IRoomViewsQuery,
  IRoomViewsResult,
  ISetModeQuery,
  ISettlingDueQuery,
} from './rooms.repository.types';

/** A room and one of its participants (or none) as read. */
type RoomViewRowColumns = Narrowed<
  IRoomViewsResult,
  { status: RoomStatus; streaming_mode: StreamingMode | null; participant_kind: ParticipantUsageRow['participant_kind'] }
>;

// The room reads (ROOM_PAGE, ROOM_VIEW, ROOM_VIEWS) show the same columns, so list, detail and
// customer-event views agree; so do the participant reads (PARTICIPANTS, ROOM_VIEW_PARTICIPANTS) and
// the room rows the services lock (LIVE_ROOM, LOCK_BY_LIVEKIT_NAMES, LOCK_BY_ID).

// One row per room and participant (a room without any: one row, its participant columns null).
const ROOM_VIEWS = sql<IRoomViewsQuery>`SELECT r.id, r.name, r.sid, r.status, r.streaming_mode, r.started_at, r.ended_at,
  r.total_connection_minutes, r.total_charged_cents, r.created_at, u.email AS created_by,
  c.id AS "participant_id?", c.identity AS "participant_identity?", c.kind AS participant_kind, c.languages,
  c.joined_at AS "participant_joined_at?", c.left_at, c.connection_minutes, c.charged_cents
  FROM rooms r JOIN users u ON u.id = r.created_by_user_id
  LEFT JOIN connections c ON c.room_id = r.id AND c.organization_id = r.organization_id
  WHERE (r.id, r.organization_id) IN (SELECT * FROM unnest($roomIds!::uuid[], $organizationIds!::uuid[]))
  ORDER BY r.id, c.joined_at, c.id`;

// Not scoped to an organization: the readiness sweep closes the transcripts of every organization's ended rooms.
const CLOSE_TRANSCRIPT = sql<ICloseTranscriptQuery>`UPDATE rooms SET transcript_closed_at = now()
  WHERE id = $roomId! AND status = 'ended' AND transcript_closed_at IS NULL
  RETURNING organization_id, name, started_at, ended_at`;

const ADD_TO_TOTALS = sql<IAddToTotalsQuery>`UPDATE rooms r SET total_connection_minutes = r.total_connection_minutes + t.minutes,
    total_charged_cents = r.total_charged_cents + t.cents
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[], $minutes!::int[], $cents!::bigint[]) AS t(organization_id, id, minutes, cents)
  WHERE r.id = t.id AND r.organization_id = t.organization_id`;

/** A room to insert; its LiveKit room exists already under `livekitName`. */
export interface NewRoom {
  id: string;
  organizationId: string;
  name: string;
  livekitName: string;
  sid: string | null;
  streamingMode: StreamingMode | null;
  createdByUserId: string;
}

/** A room the product holds live, as reconciliation with LiveKit reads it. */
export interface LiveRoomToReconcile {
  id: string;
  organizationId: string;
  livekitName: string;
  hasOpenConnections: boolean;
}

export type RoomEndState = Narrowed<IEndStateResult, { status: RoomStatus }>;

const LIVE_NAME_TAKEN = sql<ILiveNameTakenQuery>`SELECT EXISTS (SELECT 1 FROM rooms WHERE organization_id = $organizationId! AND name = $name! AND status <> 'ended')
  AS "taken!"`;

// In the order given, so of two rooms of one name the first is kept; a room whose name a live room
// holds (or any other unique key) is left out. A JSON array: `sid` and `streaming_mode` may be null.
const INSERT_ROOMS = sql<IInsertRoomsQuery>`INSERT INTO rooms (id, organization_id, name, livekit_name, sid, streaming_mode, created_by_user_id)
  SELECT r.id, r.organization_id, r.name, r.livekit_name, r.sid, r.streaming_mode, r.created_by_user_id
  FROM ROWS FROM (jsonb_to_recordset($rooms!::jsonb) AS (id uuid, organization_id uuid, name text, livekit_name text, sid text,
    streaming_mode text, created_by_user_id uuid)) WITH ORDINALITY AS r
  ORDER BY r.ordinality
  ON CONFLICT DO NOTHING
  RETURNING id AS "id!"`;

// Ordered at the precision shown (milliseconds), ties by id; index rooms_organization_newest_ms.
const ROOM_PAGE = sql<IRoomPageQuery>`SELECT r.id, r.name, r.sid, r.status, r.streaming_mode, r.started_at, r.ended_at,
  r.total_connection_minutes, r.total_charged_cents, r.created_at, u.email AS created_by
  FROM rooms r JOIN users u ON u.id = r.created_by_user_id
  WHERE r.organization_id = $organizationId! AND ($status::text IS NULL OR r.status = $status::text)
  ORDER BY date_trunc('milliseconds', r.created_at AT TIME ZONE 'UTC') DESC, r.id DESC LIMIT $limit! OFFSET $offset!`;

const ROOM_VIEW = sql<IRoomViewQuery>`SELECT r.id, r.name, r.sid, r.status, r.streaming_mode, r.started_at, r.ended_at,
  r.total_connection_minutes, r.total_charged_cents, r.created_at, u.email AS created_by
  FROM rooms r JOIN users u ON u.id = r.created_by_user_id WHERE r.id = $roomId! AND r.organization_id = $organizationId!`;

const PARTICIPANTS = sql<IParticipantsQuery>`SELECT c.id, c.identity AS participant_identity, c.kind AS participant_kind, c.languages,
  c.joined_at, c.left_at, c.connection_minutes, c.charged_cents
  FROM connections c WHERE c.room_id = $roomId! AND c.organization_id = $organizationId!
  ORDER BY date_trunc('milliseconds', c.joined_at), c.id`;

const END_STATE = sql<IEndStateQuery>`SELECT livekit_name, status FROM rooms WHERE id = $roomId! AND organization_id = $organizationId!`;

const LIVE_ROOM_ID = sql<ILiveRoomIdQuery>`SELECT id FROM rooms WHERE organization_id = $organizationId! AND name = $name! AND status <> 'ended'`;

const ADMISSION_LOCK = sql<IAdmissionLockQuery>`SELECT pg_advisory_xact_lock(hashtextextended($roomId!, 0))`;

const LIVE_ROOM = sql<ILiveRoomQuery>`SELECT id, organization_id, name, livekit_name, status, started_at, ended_at, streaming_mode,
  translator_present, translator_generation, created_at, livekit_seen_at, settled_at IS NOT NULL AS "settled!",
  total_connection_minutes, total_charged_cents
  FROM rooms WHERE id = $roomId! AND organization_id = $organizationId! AND status <> 'ended'`;

const SET_MODE = sql<ISetModeQuery>`UPDATE rooms SET streaming_mode = $mode! WHERE id = $roomId! AND organization_id = $organizationId!`;

// The function (database/functions/admit_tokens_shared.sql) takes each request's organization.

/**
 * Rooms with their join tokens and held languages: every statement on `rooms`, `room_tokens` and the
 * languages they hold, each scoped to the organization in the statement itself.
 */
@Injectable()
export class RoomsRepository {
  constructor(private readonly database: DatabaseClient) {}

  // Requests: creating, reading, listing, ending rooms; the room's side of admitting join tokens.

  /** Whether a live room (not ended) of the organization has this name. */
  async liveNameTaken(organizationId: string, name: string, sql: Sql = this.database): Promise<boolean> {
    const [row] = await sql.rows(LIVE_NAME_TAKEN, { organizationId, name });
    return row.taken;
  }

  /**
   * Inserts the rooms in one statement; the ids of those inserted. A room is left out when a live room
   * of its organization has its name (one committed, or one earlier in `rooms`).
   */
  async insert(rooms: NewRoom[], tx: Tx): Promise<Set<string>> {
    if (rooms.length === 0) return new Set();
    const rows = rooms.map((room) => ({
      id: room.id,
      organization_id: room.organizationId,
      name: room.name,
      livekit_name: room.livekitName,
      sid: room.sid,
      streaming_mode: room.streamingMode,
      created_by_user_id: room.createdByUserId,
    }));
    return new Set((await tx.rows(INSERT_ROOMS, { rooms: JSON.stringify(rows) })).map((row) => row.id));
  }

  /** One page of the organization's rooms (of one status, when given), newest first; `limit + 1` rows tell whether more exist. */
  async page(
    organizationId: string,
    limit: number,
    offset: number,
    status: RoomStatus | null = null,
    sql: Sql = this.database,
  ): Promise<RoomViewRow[]> {
    return sql.rows<IRoomPageQuery, RoomViewRow>(ROOM_PAGE, { organizationId, limit, offset, status });
  }

  async view(organizationId: string, roomId: string, sql: Sql = this.database): Promise<RoomViewRow | null> {
    const [room] = await sql.rows<IRoomViewQuery, RoomViewRow>(ROOM_VIEW, { roomId, organizationId });
    return room ?? null;
  }

  /** The room's connections, in the order they joined. */
  async participants(organizationId: string, roomId: string, sql: Sql = this.database): Promise<ParticipantUsageRow[]> {
    return sql.rows<IParticipantsQuery, ParticipantUsageRow>(PARTICIPANTS, { roomId, organizationId });
  }

  /** What ending the room needs to know: its LiveKit room and whether it has ended already. */
  async endState(organizationId: string, roomId: string, sql: Sql = this.database): Promise<RoomEndState | null> {
    const [room] = await sql.rows<IEndStateQuery, RoomEndState>(END_STATE, { roomId, organizationId });
    return room ?? null;
  }

  /** The id of the organization's live room of this name. */
  async liveRoomId(organizationId: string, name: string, sql: Sql = this.database): Promise<string | null> {
    const [room] = await sql.rows(LIVE_ROOM_ID, { organizationId, name });
    return room?.id ?? null;
  }

  /**
   * Takes the room's admission lock exclusively (a transaction-scoped advisory lock; the shared
   * admissions take it shared) and reads the room after it is held, so the decision sees every
   * earlier admission. Null when the room is not live (or not the organization's). Run it in a transaction.
   */
  async lockAdmissions(organizationId: string, roomId: string, tx: Tx): Promise<RoomRow | null> {
    await tx.rows(ADMISSION_LOCK, { roomId });
    const [room] = await tx.rows<ILiveRoomQuery, RoomRow>(LIVE_ROOM, { roomId, organizationId });
    return room ?? null;
  }

  async setMode(organizationId: string, roomId: string, mode: StreamingMode, tx: Tx): Promise<void> {
    await tx.rows(SET_MODE, { roomId, organizationId, mode });
  }

  // Lifecycle: ending a room, translator presence (driven by LiveKit events).

  /**
   * Locks the rooms with these LiveKit names, in id order (two batches never deadlock); names not
   * found are left out. A LiveKit event names its room only by its LiveKit name, unique across
   * organizations (it begins with the organization's id): each later statement on a room found here
   * is scoped to the organization it carries.
   */
  async lockByLiveKitNames(livekitNames: string[], tx: Tx): Promise<RoomRow[]> {
    return tx.rows<ILockByLivekitNamesQuery, RoomRow>(LOCK_BY_LIVEKIT_NAMES_PREPARED, { livekitNames });
  }

  /** Locks the organization's room for a change of its lifecycle; null when it has no such room. */
  async lockForLifecycle(organizationId: string, roomId: string, tx: Tx): Promise<RoomRow | null> {
    const [room] = await tx.rows<ILockByIdQuery, RoomRow>(LOCK_BY_ID, { roomId, organizationId });
    return room ?? null;
  }

  /** Joins moved these rooms' start (and made those that `starts` active). */
  async activate(changes: { organizationId: string; roomId: string; starts: boolean; startedAt: Date }[], tx: Tx): Promise<void> {
    if (changes.length === 0) return;
    await tx.rows(ACTIVATE, {
      organizationIds: changes.map((c) => c.organizationId),
      roomIds: changes.map((c) => c.roomId),
      starts: changes.map((c) => c.starts),
      startedAts: changes.map((c) => c.startedAt),
    });
  }

  /**
   * Ends the room at `at`, but never before it started or was created, to settle `settleMs` from now;
   * returns the end it was given (null when the organization has no such room).
   */
  async end(organizationId: string, roomId: string, at: Date, settleMs: number, tx: Tx): Promise<Date | null> {
    const [row] = await tx.rows(END, { roomId, organizationId, at, settleSeconds: settleMs / 1000 });
    return row?.ended_at ?? null;
  }

  /** Ended rooms whose settling time has come and that have not settled, the longest waiting first. */
  async settlingDue(limit: number, sql: Sql = this.database): Promise<{ organizationId: string; id: string }[]> {
    const rows = await sql.rows(SETTLING_DUE, { limit });
    return rows.map((row) => ({ organizationId: row.organization_id, id: row.id }));
  }

  /** Marks the ended room settled; false when it had settled already (or is not the organization's ended room). */
  async markSettled(organizationId: string, roomId: string, tx: Tx): Promise<boolean> {
    return (await tx.count(MARK_SETTLED, { roomId, organizationId })) > 0;
  }

  /** The rooms (each of its organization) as GET /v1/rooms/{id} shows them, by id. */
  async views(rooms: { roomId: string; organizationId: string }[], sql: Sql = this.database): Promise<Map<string, RoomBody>> {
    if (rooms.length === 0) return new Map();
    const keys = { roomIds: rooms.map((room) => room.roomId), organizationIds: rooms.map((room) => room.organizationId) };
    const views = new Map<string, RoomBody>();
    for (const row of await sql.rows<IRoomViewsQuery, RoomViewRowColumns>(ROOM_VIEWS, keys)) {
      const {
        participant_id: id,
        participant_identity,
        participant_kind,
        languages,
        participant_joined_at: joined_at,
        left_at,
        connection_minutes,
        charged_cents,
        ...room
      } = row;
      let view = views.get(room.id);
      if (!view) views.set(room.id, (view = { ...room, participants: [] }));
      if (id === null || participant_identity === null || joined_at === null) continue;
      view.participants.push({
        id,
        participant_identity,
        participant_kind,
        languages,
        joined_at,
        left_at,
        connection_minutes,
        charged_cents,
      });
    }
    return views;
  }

  /**
   * Adds the minutes and cents of connections that ended to their rooms' totals, one statement for
   * all. Requires every room locked by `tx` already (lockByLiveKitNames, lockForLifecycle): the sums
   * commute, but an UPDATE of several rooms taking their locks itself could deadlock with another batch.
   */
  async addToTotals(deltas: RoomTotalsDelta[], tx: Tx): Promise<void> {
    if (deltas.length === 0) return;
    await tx.rows(ADD_TO_TOTALS, {
      organizationIds: deltas.map((d) => d.organizationId),
      roomIds: deltas.map((d) => d.roomId),
      minutes: deltas.map((d) => d.minutes),
      cents: deltas.map((d) => d.cents),
    });
  }

  /**
   * Closes the ended room's transcript, once: the room as `transcript.ready` names it, or null when
   * it was closed already (or the room has not ended). Holding the row, it waits for segment inserts
   * that read the room open.
   */
  async closeTranscript(roomId: string, tx: Tx): Promise<ClosedTranscriptRoom | null> {
    const [room] = await tx.rows(CLOSE_TRANSCRIPT, { roomId });
    return room ? { organizationId: room.organization_id, name: room.name, startedAt: room.started_at, endedAt: room.ended_at } : null;
  }

  /** One page (by id) of the rooms of every organization that have not ended, for reconciliation with LiveKit. */
  async liveForReconcile(afterId: string, limit: number, sql: Sql = this.database): Promise<LiveRoomToReconcile[]> {
    const rows = await sql.rows(LIVE_FOR_RECONCILE, { afterId, limit });
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      livekitName: row.livekit_name,
      hasOpenConnections: row.has_open_connections,
    }));
  }

  /** LiveKit listed these rooms at `at` (rooms that ended meanwhile are left as they are). */
  async markSeen(rooms: { organizationId: string; id: string }[], at: Date, tx: Tx): Promise<void> {
    if (rooms.length === 0) return;
    await tx.rows(MARK_SEEN, { organizationIds: rooms.map((r) => r.organizationId), roomIds: rooms.map((r) => r.id), at });
  }

  /** Flips the translator presence of these rooms, each moving to its next generation. */
  async flipTranslatorPresence(rooms: { organizationId: string; id: string }[], tx: Tx): Promise<void> {
    if (rooms.length === 0) return;
    await tx.rows(FLIP_TRANSLATOR_PRESENCE, {
      organizationIds: rooms.map((room) => room.organizationId),
      roomIds: rooms.map((room) => room.id),
    });
  }
}

// Lifecycle statements (the methods after "Lifecycle:").
const LOCK_BY_LIVEKIT_NAMES = sql<ILockByLivekitNamesQuery>`SELECT id, organization_id, name, livekit_name, status, started_at, ended_at, streaming_mode,
  translator_present, translator_generation, created_at, livekit_seen_at, settled_at IS NOT NULL AS "settled!",
  total_connection_minutes, total_charged_cents
  FROM rooms WHERE livekit_name = ANY($livekitNames!) ORDER BY id FOR NO KEY UPDATE`;
/** Run by every batch of LiveKit events. */
const LOCK_BY_LIVEKIT_NAMES_PREPARED = prepared('rooms_lock_by_livekit_names', LOCK_BY_LIVEKIT_NAMES);

const LOCK_BY_ID = sql<ILockByIdQuery>`SELECT id, organization_id, name, livekit_name, status, started_at, ended_at, streaming_mode,
  translator_present, translator_generation, created_at, livekit_seen_at, settled_at IS NOT NULL AS "settled!",
  total_connection_minutes, total_charged_cents
  FROM rooms WHERE id = $roomId! AND organization_id = $organizationId! FOR NO KEY UPDATE`;

const ACTIVATE = sql<IActivateQuery>`UPDATE rooms r SET status = CASE WHEN c.starts THEN 'active' ELSE r.status END, started_at = c.started_at
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[], $starts!::boolean[], $startedAts!::timestamptz[]) AS c(organization_id, id, starts, started_at)
  WHERE r.id = c.id AND r.organization_id = c.organization_id`;

// GREATEST skips nulls and `at` is given: the end is never null.
const END = sql<IEndQuery>`UPDATE rooms SET status = 'ended', ended_at = GREATEST($at!::timestamptz, started_at, created_at),
    settles_at = clock_timestamp() + make_interval(secs => $settleSeconds!)
  WHERE id = $roomId! AND organization_id = $organizationId! RETURNING ended_at AS "ended_at!"`;

// Across organizations: the settling sweep serves them all (each room is then settled in its own).
const SETTLING_DUE = sql<ISettlingDueQuery>`SELECT organization_id, id FROM rooms
  WHERE settled_at IS NULL AND settles_at IS NOT NULL AND settles_at <= clock_timestamp() ORDER BY settles_at LIMIT $limit!`;

const MARK_SETTLED = sql<IMarkSettledQuery>`UPDATE rooms SET settled_at = clock_timestamp()
  WHERE id = $roomId! AND organization_id = $organizationId! AND status = 'ended' AND settled_at IS NULL`;

// Reconciliation with LiveKit: across organizations (one run serves them all; each change is then made
// under the room's lock, scoped to the organization its row carries). Pages by id through `rooms_live`.
const LIVE_FOR_RECONCILE = sql<ILiveForReconcileQuery>`SELECT r.id, r.organization_id, r.livekit_name,
  EXISTS (SELECT 1 FROM connections c WHERE c.room_id = r.id AND c.left_at IS NULL) AS "has_open_connections!"
  FROM rooms r WHERE r.status <> 'ended' AND r.id > $afterId! ORDER BY r.id LIMIT $limit!`;

const MARK_SEEN = sql<IMarkSeenQuery>`UPDATE rooms r SET livekit_seen_at = $at!
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[]) AS s(organization_id, id)
  WHERE r.id = s.id AND r.organization_id = s.organization_id AND r.status <> 'ended'`;

const FLIP_TRANSLATOR_PRESENCE = sql<IFlipTranslatorPresenceQuery>`UPDATE rooms r SET translator_present = NOT r.translator_present, translator_generation = r.translator_generation + 1
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[]) AS f(organization_id, id) WHERE r.id = f.id AND r.organization_id = f.organization_id`;
