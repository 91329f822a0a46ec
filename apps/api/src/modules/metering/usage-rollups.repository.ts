import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type { IAddToSlotsQuery, ICountedRoomsQuery } from './usage-rollups.repository.types';

/** What a room counts for in the slot of its start. */
export interface CountedRoom {
  id: string;
  organizationId: string;
  startedAt: Date | null;
  /** Its minutes so far, translator included. */
  minutes: number;
  /** Its connections of people (not the translator), open or closed. */
  participants: number;
}

/** What one write adds to a usage slot (negative to take a room out of it). */
export interface SlotDelta {
  minutes: number;
  sessions: number;
  participants: number;
}

const COUNTED_ROOMS = sql<ICountedRoomsQuery>`SELECT r.id, r.organization_id, r.started_at, r.total_connection_minutes AS minutes,
    (SELECT count(*)::int FROM connections c
      WHERE c.room_id = r.id AND c.organization_id = r.organization_id AND c.kind IS DISTINCT FROM 'translator') AS "participants!"
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[]) AS q(organization_id, id)
  JOIN rooms r ON r.id = q.id AND r.organization_id = q.organization_id`;

/** What a write adds to one slot: the slot's start (epoch seconds) and its delta. */
export interface SlotWrite extends SlotDelta {
  slotSeconds: number;
}

/**
 * The slots' deltas (each slot once), then the version: the version is read from what the slots
 * wrote, so the rows are locked slots first, in the order given, then the version, as every
 * transaction of the organization locks them.
 */
const ADD_TO_SLOTS = sql<IAddToSlotsQuery>`WITH added AS (
    INSERT INTO usage_slots (organization_id, slot, minutes, sessions, participants)
    SELECT $organizationId!, to_timestamp(s.slot), s.minutes, s.sessions, s.participants
      FROM unnest($slotSeconds!::float8[], $minutes!::int[], $sessions!::int[], $participants!::int[])
        WITH ORDINALITY AS s(slot, minutes, sessions, participants, n)
     ORDER BY s.n
    ON CONFLICT (organization_id, slot) DO UPDATE SET minutes = usage_slots.minutes + EXCLUDED.minutes,
      sessions = usage_slots.sessions + EXCLUDED.sessions, participants = usage_slots.participants + EXCLUDED.participants
    RETURNING 1)
  INSERT INTO usage_versions (organization_id, version)
  SELECT $organizationId!, $writes!::int FROM (SELECT count(*) FROM added) AS written
  ON CONFLICT (organization_id) DO UPDATE SET version = usage_versions.version + EXCLUDED.version`;

/**
 * The writes of the usage rollup: 15-minute slots per organization (minutes, sessions, participants)
 * and the organization's usage version, which moves with every write so cached overviews key on it.
 * The reads of the overview are UsageService's.
 */
@Injectable()
export class UsageRollupsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** What these rooms count for now (their start, minutes and participants); rooms not found are left out. */
  async countedRooms(rooms: { organizationId: string; id: string }[], sql: Sql = this.database): Promise<CountedRoom[]> {
    if (rooms.length === 0) return [];
    const rows = await sql.rows(COUNTED_ROOMS, {
      organizationIds: rooms.map((room) => room.organizationId),
      roomIds: rooms.map((room) => room.id),
    });
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      startedAt: row.started_at,
      minutes: row.minutes,
      participants: row.participants,
    }));
  }

  /**
   * Adds to the organization's slots (each created at zero first, each given once) and moves its usage
   * version by `writes`, with one statement.
   */
  async addToSlots(organizationId: string, slots: SlotWrite[], writes: number, tx: Tx): Promise<void> {
    await tx.rows(ADD_TO_SLOTS, {
      organizationId,
      slotSeconds: slots.map((s) => s.slotSeconds),
      minutes: slots.map((s) => s.minutes),
      sessions: slots.map((s) => s.sessions),
      participants: slots.map((s) => s.participants),
      writes,
    });
  }
}
