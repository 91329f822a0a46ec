// Longer than ~300 lines on purpose: the connections aggregate's statements (open, close, move an end earlier,
// the reconciliation's lists), each written out whole with its row types, as a typed statement takes no shared fragment.
import type { ParticipantKind } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, prepared, sql, withNulls } from '../../database/typed-sql';
import type {
  IByParticipantQuery,
  IClosedAfterQuery,
  ICloseParams,
  ICloseQuery,
  ICloseResult,
  IConnectedLanguagesQuery,
  IMarkSeenQuery,
  IOpenCostQuery,
  IOpenInRoomsQuery,
  IMoveEndsEarlierParams,
  IMoveEndsEarlierQuery,
  IOpenByIdQuery,
  IOpenByIdResult,
  IOpenInRoomQuery,
  IOpenQuery,
  IOpenResult,
} from './connections.repository.types';

/** A connection to open, as a join reports it. */
export interface NewConnection {
  organizationId: string;
  roomId: string;
  participantSid: string;
  identity: string;
  kind: ParticipantKind | null;
  /** The token's languages (null for the translator, or a participant without a token). */
  languages: string[] | null;
  joinedAt: Date;
  centsPerMinute: number;
}

/** A connection a join opened (one per room and participant sid). */
export interface OpenedConnection {
  id: number;
  roomId: string;
  participantSid: string;
  kind: ParticipantKind | null;
  identity: string;
  languages: string[] | null;
  joinedAt: Date;
}

/** What closing a connection needs to know of it. */
export interface OpenConnection {
  id: number;
  organizationId: string;
  roomId: string;
  joinedAt: Date;
  centsPerMinute: number;
}

/** A connection found by its participant: open (`leftAt` null) or closed. */
export interface KnownConnection extends OpenConnection {
  participantSid: string;
  leftAt: Date | null;
}

/** An open connection, with when LiveKit last listed its participant (null: never). */
export interface ListedConnection {
  id: number;
  organizationId: string;
  roomId: string;
  participantSid: string;
  identity: string;
  isTranslator: boolean;
  joinedAt: Date;
  seenAt: Date | null;
}

/** The end of a connection, as the meter decided it. */
export interface ConnectionEnd {
  organizationId: string;
  id: number;
  leftAt: Date;
  minutes: number;
  cents: number;
}

/** A connection this close ended (one closed before is not among them). */
export interface ClosedConnection {
  id: number;
  kind: ParticipantKind | null;
  identity: string;
  languages: string[] | null;
  joinedAt: Date;
  leftAt: Date;
}

/** A connection whose end moved earlier: its figures before and after. */
export interface CorrectedConnection {
  id: number;
  organizationId: string;
  roomId: string;
  leftAt: Date;
  previousMinutes: number;
  previousCents: number;
  minutes: number;
  cents: number;
}

// The languages travel as jsonb: an array of text arrays cannot be passed as one parameter.
const OPEN = sql<IOpenQuery>`INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
  SELECT room_id, organization_id, sid, identity, kind,
         CASE WHEN languages IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(languages)) END, joined_at, rate
    FROM unnest($roomIds!::uuid[], $organizationIds!::uuid[], $participantSids!::text[], $identities!::text[], $kinds!::text[],
                $languages!::jsonb[], $joinedAts!::timestamptz[], $centsPerMinute!::int[])
      AS j(room_id, organization_id, sid, identity, kind, languages, joined_at, rate)
  ON CONFLICT (room_id, participant_sid) DO NOTHING RETURNING id, room_id, participant_sid, kind, identity, languages, joined_at`;

const BY_PARTICIPANT = sql<IByParticipantQuery>`SELECT c.id, c.organization_id, c.room_id, c.joined_at, c.cents_per_minute, c.left_at, c.participant_sid
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[], $participantSids!::text[]) AS p(organization_id, room_id, sid)
  JOIN connections c ON c.room_id = p.room_id AND c.participant_sid = p.sid AND c.organization_id = p.organization_id`;

const OPEN_BY_ID = sql<IOpenByIdQuery>`SELECT id, organization_id, room_id, joined_at, cents_per_minute FROM connections
  WHERE id = $connectionId! AND organization_id = $organizationId! AND left_at IS NULL`;

const OPEN_IN_ROOM = sql<IOpenInRoomQuery>`SELECT id, organization_id, room_id, joined_at, cents_per_minute FROM connections
  WHERE room_id = $roomId! AND organization_id = $organizationId! AND left_at IS NULL`;

const CLOSE = sql<ICloseQuery>`UPDATE connections c SET left_at = v.left_at, connection_minutes = v.minutes, charged_cents = v.cents
  FROM unnest($ids!::bigint[], $organizationIds!::uuid[], $leftAts!::timestamptz[], $minutes!::int[], $cents!::bigint[])
    AS v(id, organization_id, left_at, minutes, cents)
  WHERE c.id = v.id AND c.organization_id = v.organization_id AND c.left_at IS NULL
  RETURNING c.id, c.kind, c.identity, c.languages, c.joined_at, c.left_at AS "left_at!"`;

const CLOSED_AFTER = sql<IClosedAfterQuery>`SELECT id, organization_id, room_id, joined_at, cents_per_minute, left_at, participant_sid FROM connections
  WHERE room_id = $roomId! AND organization_id = $organizationId! AND left_at > $at!`;

// The figures replaced are read from the row as `locked` holds it (FOR UPDATE waits for a concurrent
// move and then reads its result), so the correction is right whatever lock its caller holds.
const MOVE_ENDS_EARLIER = sql<IMoveEndsEarlierQuery>`WITH locked AS (
    SELECT c.id, c.connection_minutes, c.charged_cents, v.left_at, v.minutes, v.cents
      FROM unnest($ids!::bigint[], $organizationIds!::uuid[], $leftAts!::timestamptz[], $minutes!::int[], $cents!::bigint[])
        AS v(id, organization_id, left_at, minutes, cents)
      JOIN connections c ON c.id = v.id AND c.organization_id = v.organization_id
     ORDER BY c.id
       FOR UPDATE OF c)
  UPDATE connections c SET left_at = l.left_at, connection_minutes = l.minutes, charged_cents = l.cents
    FROM locked l
   WHERE c.id = l.id AND c.left_at > l.left_at
  RETURNING c.id, c.organization_id, c.room_id, c.left_at AS "left_at!", l.connection_minutes AS "previous_minutes!",
            l.charged_cents AS "previous_cents!", c.connection_minutes AS "minutes!", c.charged_cents AS "cents!"`;

/**
 * Room by room through the open connections' index (`OFFSET 0` keeps the lookup from being
 * flattened into a join, which, on the estimates of a burst, hashed every open connection of every
 * room for each batch: 9 ms for 50 rooms among 4,900 open connections, docs/performance-history.md).
 */
const CONNECTED_LANGUAGES = sql<IConnectedLanguagesQuery>`SELECT r.id AS "room_id!", array_agg(DISTINCT l ORDER BY l) AS "languages!"
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[]) AS r(organization_id, id)
  CROSS JOIN LATERAL (
    SELECT c.languages FROM connections c
     WHERE c.room_id = r.id AND c.organization_id = r.organization_id AND c.left_at IS NULL AND c.kind IS DISTINCT FROM 'translator'
    OFFSET 0) c,
  unnest(c.languages) AS l
  GROUP BY r.id`;

// Reconciliation with LiveKit: each room's open connections, with when LiveKit last listed each (the rooms locked).
const OPEN_IN_ROOMS = sql<IOpenInRoomsQuery>`SELECT c.id, c.organization_id, c.room_id, c.participant_sid, c.identity, c.kind, c.joined_at,
  c.livekit_seen_at
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[]) AS r(organization_id, id)
  JOIN connections c ON c.room_id = r.id AND c.organization_id = r.organization_id AND c.left_at IS NULL`;

const MARK_SEEN = sql<IMarkSeenQuery>`UPDATE connections c SET livekit_seen_at = s.at
  FROM unnest($organizationIds!::uuid[], $ids!::bigint[], $ats!::timestamptz[]) AS s(organization_id, id, at)
  WHERE c.id = s.id AND c.organization_id = s.organization_id AND c.left_at IS NULL`;

// Through connections_open_by_organization (its cents_per_minute included).
const OPEN_COST = sql<IOpenCostQuery>`SELECT count(*)::int AS "open!", coalesce(sum(cents_per_minute), 0)::int AS "cents_per_minute!"
  FROM connections WHERE organization_id = $organizationId! AND left_at IS NULL`;

/** Run by every batch of LiveKit events. */
const CONNECTED_LANGUAGES_PREPARED = prepared('connections_connected_languages', CONNECTED_LANGUAGES);

/** The parameters of CLOSE and MOVE_ENDS_EARLIER: one array per column of the ends. */
const endColumns = (ends: ConnectionEnd[]): ICloseParams & IMoveEndsEarlierParams => ({
  ids: ends.map((e) => e.id),
  organizationIds: ends.map((e) => e.organizationId),
  leftAts: ends.map((e) => e.leftAt),
  minutes: ends.map((e) => e.minutes),
  cents: ends.map((e) => e.cents),
});

// A connection's kind: its CHECK allows the participant kinds only.
type OpenedRow = Narrowed<IOpenResult, { kind: ParticipantKind | null }>;
type ClosedRow = Narrowed<ICloseResult, { kind: ParticipantKind | null }>;

const toOpen = (row: IOpenByIdResult): OpenConnection => ({
  id: row.id,
  organizationId: row.organization_id,
  roomId: row.room_id,
  joinedAt: row.joined_at,
  centsPerMinute: row.cents_per_minute,
});

/**
 * Connections, one per room and participant sid: opened by the join, closed once with their minutes
 * and charge, and the rooms' running totals of the connections that ended in them. Every statement
 * is scoped to the organization of the room it reads or changes.
 */
@Injectable()
export class ConnectionsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Opens the connections not opened before (a repeated join opens nothing); returns those it opened. */
  async open(connections: NewConnection[], tx: Tx): Promise<OpenedConnection[]> {
    if (connections.length === 0) return [];
    const rows = await tx.rows<IOpenQuery, OpenedRow>(OPEN, {
      roomIds: connections.map((c) => c.roomId),
      organizationIds: connections.map((c) => c.organizationId),
      participantSids: connections.map((c) => c.participantSid),
      identities: connections.map((c) => c.identity),
      kinds: withNulls(connections.map((c) => c.kind)),
      languages: connections.map((c) => (c.languages ? JSON.stringify(c.languages) : null)),
      joinedAts: connections.map((c) => c.joinedAt),
      centsPerMinute: connections.map((c) => c.centsPerMinute),
    });
    return rows.map((row) => ({
      id: row.id,
      roomId: row.room_id,
      participantSid: row.participant_sid,
      kind: row.kind,
      identity: row.identity,
      languages: row.languages,
      joinedAt: row.joined_at,
    }));
  }

  /** The connections of these participants (by room and sid), open or closed; those never opened are left out. */
  async byParticipant(
    participants: { organizationId: string; roomId: string; participantSid: string }[],
    sql: Sql = this.database,
  ): Promise<KnownConnection[]> {
    if (participants.length === 0) return [];
    const rows = await sql.rows(BY_PARTICIPANT, {
      organizationIds: participants.map((p) => p.organizationId),
      roomIds: participants.map((p) => p.roomId),
      participantSids: participants.map((p) => p.participantSid),
    });
    return rows.map((row) => ({ ...toOpen(row), participantSid: row.participant_sid, leftAt: row.left_at }));
  }

  /** The connection, if it is still open. */
  async findOpen(organizationId: string, connectionId: number, sql: Sql = this.database): Promise<OpenConnection | null> {
    const [row] = await sql.rows(OPEN_BY_ID, { connectionId, organizationId });
    return row ? toOpen(row) : null;
  }

  /** The room's open connections. */
  async openInRoom(organizationId: string, roomId: string, sql: Sql = this.database): Promise<OpenConnection[]> {
    return (await sql.rows(OPEN_IN_ROOM, { roomId, organizationId })).map(toOpen);
  }

  /**
   * Ends the connections with one statement, each with its minutes and charge; one already closed
   * (by an earlier close, or a concurrent one: the UPDATE re-checks the row it locks) is left as it
   * is and not returned. Needs no lock of its caller.
   */
  async close(ends: ConnectionEnd[], tx: Tx): Promise<ClosedConnection[]> {
    if (ends.length === 0) return [];
    const rows = await tx.rows<ICloseQuery, ClosedRow>(CLOSE, endColumns(ends));
    return rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      identity: row.identity,
      languages: row.languages,
      joinedAt: row.joined_at,
      leftAt: row.left_at,
    }));
  }

  /** The room's connections that ended after `at`. */
  async closedAfter(organizationId: string, roomId: string, at: Date, sql: Sql = this.database): Promise<KnownConnection[]> {
    const rows = await sql.rows(CLOSED_AFTER, { roomId, organizationId, at });
    return rows.map((row) => ({ ...toOpen(row), participantSid: row.participant_sid, leftAt: row.left_at }));
  }

  /**
   * Moves the ends of closed connections earlier, each with its new minutes and charge; a connection
   * whose end is already at or before the new one is left as it is and not returned. Its previous
   * figures are those of the row it locked: right without the caller holding the room's lock.
   */
  async moveEndsEarlier(ends: ConnectionEnd[], tx: Tx): Promise<CorrectedConnection[]> {
    if (ends.length === 0) return [];
    const rows = await tx.rows(MOVE_ENDS_EARLIER, endColumns(ends));
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      roomId: row.room_id,
      leftAt: row.left_at,
      previousMinutes: row.previous_minutes,
      previousCents: row.previous_cents,
      minutes: row.minutes,
      cents: row.cents,
    }));
  }

  /** How many of the organization's connections are open, and what they cost per minute together. */
  async openCost(organizationId: string, sql: Sql = this.database): Promise<{ open: number; centsPerMinute: number }> {
    const [row] = await sql.rows(OPEN_COST, { organizationId });
    return { open: row.open, centsPerMinute: row.cents_per_minute };
  }

  /** The open connections of these rooms, with when LiveKit last listed each. */
  async openInRooms(rooms: { organizationId: string; id: string }[], sql: Sql = this.database): Promise<ListedConnection[]> {
    if (rooms.length === 0) return [];
    const rows = await sql.rows(OPEN_IN_ROOMS, { organizationIds: rooms.map((r) => r.organizationId), roomIds: rooms.map((r) => r.id) });
    return rows.map((row) => ({
      id: Number(row.id),
      organizationId: row.organization_id,
      roomId: row.room_id,
      participantSid: row.participant_sid,
      identity: row.identity,
      isTranslator: row.kind === 'translator',
      joinedAt: row.joined_at,
      seenAt: row.livekit_seen_at,
    }));
  }

  /** LiveKit listed these open connections' participants, each at its `at`. */
  async markSeen(connections: { organizationId: string; id: number; at: Date }[], tx: Tx): Promise<void> {
    if (connections.length === 0) return;
    await tx.rows(MARK_SEEN, {
      organizationIds: connections.map((c) => c.organizationId),
      ids: connections.map((c) => c.id),
      ats: connections.map((c) => c.at),
    });
  }

  /** By room: the languages its connected people (not the translator) hold, sorted; a room where none are held is left out. */
  async connectedLanguages(rooms: { organizationId: string; id: string }[], sql: Sql = this.database): Promise<Map<string, string[]>> {
    if (rooms.length === 0) return new Map();
    const rows = await sql.rows(CONNECTED_LANGUAGES_PREPARED, {
      organizationIds: rooms.map((room) => room.organizationId),
      roomIds: rooms.map((room) => room.id),
    });
    return new Map(rows.map((row) => [row.room_id, row.languages]));
  }
}
