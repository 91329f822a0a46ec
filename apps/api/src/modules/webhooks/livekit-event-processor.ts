import { participantClassOf, type ParticipantKind } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { OutboxJob } from '../../queue/outbox';
import { RoomLifecycle } from '../rooms/room-lifecycle';
import type { RoomRow } from '../rooms/room-queries';
import { TranslatorPresence } from '../rooms/translator-presence';
import { readLiveKitEvent, type LiveKitEventFacts } from './livekit-event';
import { ConnectionMeter, type OpenConnection } from '../metering/connection-meter';
import { UsageRollup } from '../usage/usage-rollup';
import { CustomerEvents } from '../customer-webhooks/customer-events';
import type { Sql } from '../../database/sql';

type Participant = NonNullable<LiveKitEventFacts['participant']>;

interface Join {
  room: RoomRow;
  participant: Participant;
}

interface Activation {
  room: RoomRow;
  earliestJoin: Date;
  /** Non-translator connections the joins opened. */
  newParticipants: number;
}

interface Leave extends Join {
  at: Date;
}

/**
 * Applies stored LiveKit events to rooms and connections. A batch locks each of its rooms once (in
 * id order, so two batches never deadlock). In rooms whose events are only joins and leaves of a
 * live room that does not finish in the batch (nearly always), all joins of the batch are applied with a few set-wide statements,
 * then all leaves; other rooms apply their events one by one, in the order received. Last, each room's
 * translator presence is decided once from where the room ended up.
 */
@Injectable()
export class LiveKitEventProcessor {
  constructor(
    private readonly lifecycle: RoomLifecycle,
    private readonly meter: ConnectionMeter,
    private readonly translator: TranslatorPresence,
    private readonly usage: UsageRollup,
    private readonly events: CustomerEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async applyBatch(tx: Sql, payloads: unknown[]): Promise<OutboxJob[]> {
    const byRoom = new Map<string, LiveKitEventFacts[]>();
    for (const event of payloads.map(readLiveKitEvent)) {
      if (!event.livekitRoom) continue;
      const events = byRoom.get(event.livekitRoom);
      if (events) events.push(event);
      else byRoom.set(event.livekitRoom, [event]);
    }
    if (byRoom.size === 0) return [];
    const rooms = await this.lifecycle.lockAll(tx, [...byRoom.keys()]);
    const jobs: OutboxJob[] = [];
    const joins: Join[] = [];
    const leaves: Leave[] = [];
    for (const room of rooms) {
      // In the order received, as if applied one by one: where order matters (the first leave of a
      // connection wins; a leave after room_finished changes nothing) batching changes nothing.
      const events = byRoom.get(room.livekit_name)!;
      if (room.status !== 'ended' && events.every((event) => event.type !== 'room_finished')) {
        for (const event of events) {
          const change = membershipChange(event);
          if (change === 'join') joins.push({ room, participant: event.participant! });
          else if (change === 'leave') leaves.push({ room, participant: event.participant!, at: event.createdAt });
        }
        continue;
      }
      for (const event of events) jobs.push(...(await this.applyOne(tx, room, event)));
    }
    await this.joinAll(tx, joins);
    await this.leaveAll(tx, leaves);
    jobs.push(...(await this.translator.reconcileAll(tx, rooms)));
    return jobs;
  }

  private async applyOne(tx: Sql, room: RoomRow, event: LiveKitEventFacts): Promise<OutboxJob[]> {
    if (event.type === 'room_finished') return this.lifecycle.endLocked(tx, room, event.createdAt);
    const change = membershipChange(event);
    // Totals are final once the room has ended: a connection that began after its end was never part of the call.
    if (change !== null && joinedAfterEnd(room, event.participant!)) return [];
    if (change === 'join') {
      const [connectionId] = await this.joinAll(tx, [{ room, participant: event.participant! }]);
      // A join reported after the room ended was part of the call: it ended with the room.
      if (room.status === 'ended' && room.ended_at && connectionId !== null) await this.meter.close(tx, room, connectionId, room.ended_at);
    } else if (change === 'leave') {
      await this.leaveAll(tx, [{ room, participant: event.participant!, at: event.createdAt }]);
    }
    return [];
  }

  /**
   * Opens the connections (once per participant sid), moves their rooms to active and their start to
   * the earliest join; returns each join's connection id, in order.
   */
  private async joinAll(tx: Sql, joins: Join[]): Promise<(number | null)[]> {
    if (joins.length === 0) return [];
    // The connection now holds its token's languages: the token's short reservation is over.
    const tokens = (await tx.rows(
      `UPDATE room_tokens t SET reserved_until = NULL FROM unnest($1::uuid[], $2::text[]) AS j(room_id, identity)
        WHERE t.room_id = j.room_id AND t.identity = j.identity RETURNING t.room_id, t.identity, t.kind, t.languages`,
      [joins.map((j) => j.room.id), joins.map((j) => j.participant.identity)],
    )) as { room_id: string; identity: string; kind: ParticipantKind; languages: string[] }[];
    const tokenOf = new Map(tokens.map((token) => [`${token.room_id} ${token.identity}`, token]));
    const rows = joins.map(({ room, participant }) => {
      const token = tokenOf.get(`${room.id} ${participant.identity}`);
      const kind: ParticipantKind | null = participant.isAgent ? 'translator' : (token?.kind ?? null);
      const rate =
        participantClassOf(kind ?? 'member') === 'translator'
          ? this.config.rates.translatorCentsPerMinute
          : this.config.rates.participantCentsPerMinute;
      const languages = participant.isAgent ? null : (token?.languages ?? null);
      return { room, participant, kind, rate, languages };
    });
    const inserted = (await tx.rows(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
       SELECT room_id, organization_id, sid, identity, kind,
              CASE WHEN languages IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(languages)) END, joined_at, rate
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::timestamptz[], $8::int[])
           AS j(room_id, organization_id, sid, identity, kind, languages, joined_at, rate)
       ON CONFLICT (room_id, participant_sid) DO NOTHING RETURNING id, room_id, participant_sid, kind, identity, joined_at`,
      [
        rows.map((r) => r.room.id),
        rows.map((r) => r.room.organization_id),
        rows.map((r) => r.participant.sid),
        rows.map((r) => r.participant.identity),
        rows.map((r) => r.kind),
        rows.map((r) => (r.languages ? JSON.stringify(r.languages) : null)),
        rows.map((r) => r.participant.joinedAt),
        rows.map((r) => r.rate),
      ],
    )) as { id: number; room_id: string; participant_sid: string; kind: ParticipantKind | null; identity: string; joined_at: Date }[];
    const idOf = new Map(inserted.map((row) => [`${row.room_id} ${row.participant_sid}`, Number(row.id)]));
    const rejoined = rows.filter((r) => !idOf.has(`${r.room.id} ${r.participant.sid}`));
    if (rejoined.length > 0) {
      const existing = (await tx.rows(
        `SELECT c.id, c.room_id, c.participant_sid FROM connections c
           JOIN unnest($1::uuid[], $2::text[]) AS j(room_id, sid) ON c.room_id = j.room_id AND c.participant_sid = j.sid`,
        [rejoined.map((r) => r.room.id), rejoined.map((r) => r.participant.sid)],
      )) as { id: number; room_id: string; participant_sid: string }[];
      for (const row of existing) idOf.set(`${row.room_id} ${row.participant_sid}`, Number(row.id));
    }
    // By room: its earliest join, and the non-translator connections the joins opened.
    const activations = new Map<string, Activation>();
    for (const { room, participant } of joins) {
      const activation = activations.get(room.id);
      if (!activation) activations.set(room.id, { room, earliestJoin: participant.joinedAt, newParticipants: 0 });
      else if (participant.joinedAt < activation.earliestJoin) activation.earliestJoin = participant.joinedAt;
    }
    for (const row of inserted) if (row.kind !== 'translator') activations.get(row.room_id)!.newParticipants++;
    await this.activateAll(tx, [...activations.values()]);
    // After room.started (written by activateAll), as it happened.
    for (const row of inserted.filter((r) => r.kind === 'translator')) {
      const { room } = activations.get(row.room_id)!;
      const data = { room_id: room.id, room_name: room.name, participant_identity: row.identity, joined_at: row.joined_at };
      await this.events.emit(tx, { organizationId: room.organization_id, type: 'translator.joined', roomId: room.id, data });
    }
    return rows.map((r) => idOf.get(`${r.room.id} ${r.participant.sid}`) ?? null);
  }

  /**
   * Joined rooms are active and start at their earliest join; the usage rollup follows the starts, or
   * counts the participants the joins added. One statement for all the rooms that change.
   */
  private async activateAll(tx: Sql, activations: Activation[]): Promise<void> {
    const changes = activations.flatMap(({ room, earliestJoin, newParticipants }) => {
      const starts = room.status === 'created';
      const previousStart = room.started_at;
      const moves = previousStart === null || earliestJoin < previousStart;
      return starts || moves
        ? [{ room, starts, moves, previousStart, startedAt: moves ? earliestJoin : previousStart!, newParticipants }]
        : [];
    });
    if (changes.length > 0) {
      await tx.rows(
        `UPDATE rooms r SET status = CASE WHEN c.starts THEN 'active' ELSE r.status END, started_at = c.started_at
           FROM unnest($1::uuid[], $2::boolean[], $3::timestamptz[]) AS c(id, starts, started_at) WHERE r.id = c.id`,
        [changes.map((c) => c.room.id), changes.map((c) => c.starts), changes.map((c) => c.startedAt)],
      );
    }
    for (const change of changes) {
      change.room.started_at = change.startedAt;
      if (!change.starts) continue;
      change.room.status = 'active';
      await this.events.emit(tx, { organizationId: change.room.organization_id, type: 'room.started', roomId: change.room.id });
    }
    const moves = changes.filter((c) => c.moves);
    await this.usage.roomStartsChanged(
      tx,
      moves.map((c) => ({ roomId: c.room.id, previous: c.previousStart, joinedParticipants: c.newParticipants })),
    );
    const moved = new Set(moves.map((c) => c.room));
    for (const { room, newParticipants } of activations) {
      if (moved.has(room) || newParticipants === 0) continue;
      await this.usage.addToRoom(
        tx,
        { organizationId: room.organization_id, startedAt: room.started_at },
        { minutes: 0, participants: newParticipants },
      );
    }
  }

  /** Closes each connection at its leave's time (the first leave wins); a leave that arrives before its join opens it first. */
  private async leaveAll(tx: Sql, leaves: Leave[]): Promise<void> {
    if (leaves.length === 0) return;
    const known = (await tx.rows(
      `SELECT c.id, c.organization_id, c.room_id, c.joined_at, c.cents_per_minute, c.left_at, c.participant_sid FROM connections c
         JOIN unnest($1::uuid[], $2::text[]) AS l(room_id, sid) ON c.room_id = l.room_id AND c.participant_sid = l.sid`,
      [leaves.map((l) => l.room.id), leaves.map((l) => l.participant.sid)],
    )) as (OpenConnection & { left_at: Date | null; participant_sid: string })[];
    const connectionOf = new Map(known.map((row) => [`${row.room_id} ${row.participant_sid}`, row]));
    const closes = new Map<number, { room: RoomRow; connection: OpenConnection; leftAt: Date }>();
    for (const leave of leaves) {
      const connection = connectionOf.get(`${leave.room.id} ${leave.participant.sid}`);
      if (!connection) {
        const [connectionId] = await this.joinAll(tx, [leave]);
        if (connectionId !== null) await this.meter.close(tx, leave.room, connectionId, notAfterRoomEnd(leave.room, leave.at));
      } else if (connection.left_at === null && !closes.has(Number(connection.id))) {
        closes.set(Number(connection.id), { room: leave.room, connection, leftAt: leave.at });
      }
    }
    await this.meter.closeOpenMany(tx, [...closes.values()]);
  }
}

function joinedAfterEnd(room: RoomRow, participant: { joinedAt: Date }): boolean {
  return room.status === 'ended' && room.ended_at !== null && participant.joinedAt >= room.ended_at;
}

/** No connection outlasts its room: one whose end is reported after the room ended closes with the room. */
function notAfterRoomEnd(room: RoomRow, at: Date): Date {
  return room.status === 'ended' && room.ended_at && room.ended_at < at ? room.ended_at : at;
}

function membershipChange(event: LiveKitEventFacts): 'join' | 'leave' | null {
  if (!event.participant) return null;
  if (event.type === 'participant_joined') return 'join';
  if (event.type === 'participant_left' || event.type === 'participant_connection_aborted') return 'leave';
  return null;
}
