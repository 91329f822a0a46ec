import { isLiveRoom, nextRoomStatus, participantClassOf, rateFor, type ParticipantKind } from '@app/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { OutboxJob } from '../../queue/outbox.publisher';
import { RoomLifecycleService } from '../rooms/room-lifecycle.service';
import type { RoomRow } from '../rooms/room-rows';
import { RoomTokensRepository } from '../rooms/room-tokens.repository';
import { RoomsRepository } from '../rooms/rooms.repository';
import { TranslatorPresenceService } from '../rooms/translator-presence.service';
import { readLiveKitEvent, type LiveKitEventFacts } from './livekit-event';
import { ConnectionMeterService } from './connection-meter.service';
import { ConnectionsRepository, type NewConnection, type OpenConnection } from './connections.repository';
import { UsageRollupService } from './usage-rollup.service';
import { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { Tx } from '../../database/sql';
import { participantEventData } from './participant-event';

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
 * then all leaves; other rooms apply their events one by one, in the order stored. A connection
 * ends at the earliest end reported for it, so the result is the same in any order. Last, each room's
 * translator presence is decided once from where the room ended up. The outbox jobs decided are
 * returned, for the worker to write once with the batch's transaction.
 */
@Injectable()
export class LiveKitEventsService {
  private readonly logger = new Logger(LiveKitEventsService.name);

  constructor(
    private readonly lifecycle: RoomLifecycleService,
    private readonly meter: ConnectionMeterService,
    private readonly translator: TranslatorPresenceService,
    private readonly usage: UsageRollupService,
    private readonly events: CustomerEventsPublisher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rooms: RoomsRepository,
    private readonly tokens: RoomTokensRepository,
    private readonly connections: ConnectionsRepository,
  ) {}

  async applyBatch(tx: Tx, payloads: unknown[]): Promise<OutboxJob[]> {
    return this.applyFacts(tx, payloads.map(readLiveKitEvent));
  }

  /**
   * Applies events by their facts: LiveKit's own, or those reconciliation concludes from LiveKit's
   * lists (a leave or a room's end where it was last seen listed, a join it lists).
   */
  async applyFacts(tx: Tx, facts: LiveKitEventFacts[]): Promise<OutboxJob[]> {
    const byRoom = new Map<string, LiveKitEventFacts[]>();
    for (const event of facts) {
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
      // In the order stored, as if applied one by one (the result does not depend on it: a
      // connection ends at its earliest reported end).
      const events = byRoom.get(room.livekit_name)!;
      if (isLiveRoom(room.status) && events.every((event) => event.type !== 'room_finished')) {
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

  private async applyOne(tx: Tx, room: RoomRow, event: LiveKitEventFacts): Promise<OutboxJob[]> {
    if (event.type === 'room_finished') {
      if (!finishedBeforeCreated(room, event.createdAt)) return this.lifecycle.endLocked(tx, room, event.createdAt);
      this.logger.warn(
        `room_finished ${event.id} of room ${room.id} is stamped ${event.createdAt.toISOString()}, before the room was created ` +
          `(${room.created_at.toISOString()}): an earlier LiveKit room of its name or a bad clock; applied as a no-op.`,
      );
      return [];
    }
    const change = membershipChange(event);
    // Totals are final once the room has ended: a connection that began after its end was never part of the call.
    if (change !== null && joinedAfterEnd(room, event.participant!)) return [];
    if (change === 'join') {
      const [connectionId] = await this.joinAll(tx, [{ room, participant: event.participant! }]);
      // A join reported after the room ended was part of the call: it ended with the room.
      if (!isLiveRoom(room.status) && room.ended_at && connectionId !== null) await this.meter.close(tx, room, connectionId, room.ended_at);
    } else if (change === 'leave') {
      await this.leaveAll(tx, [{ room, participant: event.participant!, at: event.createdAt }]);
    }
    return [];
  }

  /**
   * Opens the connections (once per participant sid), moves their rooms to active and their start to
   * the earliest join; returns each join's connection id, in order.
   */
  private async joinAll(tx: Tx, joins: Join[]): Promise<(number | null)[]> {
    if (joins.length === 0) return [];
    // The connection now holds its token's languages: the token's short reservation is over.
    const tokens = await this.tokens.releaseReservations(
      joins.map(({ room, participant }) => ({ organizationId: room.organization_id, roomId: room.id, identity: participant.identity })),
      tx,
    );
    const tokenOf = new Map(tokens.map((token) => [`${token.roomId} ${token.identity}`, token]));
    const opening = joins.map(({ room, participant }): NewConnection => {
      const token = tokenOf.get(`${room.id} ${participant.identity}`);
      const kind: ParticipantKind | null = participant.isAgent ? 'translator' : (token?.kind ?? null);
      const centsPerMinute = rateFor(this.config.rates, participantClassOf(kind ?? 'member'));
      return {
        organizationId: room.organization_id,
        roomId: room.id,
        participantSid: participant.sid,
        identity: participant.identity,
        kind,
        languages: participant.isAgent ? null : (token?.languages ?? null),
        joinedAt: participant.joinedAt,
        centsPerMinute,
      };
    });
    const inserted = await this.connections.open(opening, tx);
    const idOf = new Map(inserted.map((row) => [`${row.roomId} ${row.participantSid}`, row.id]));
    const rejoined = opening.filter((c) => !idOf.has(`${c.roomId} ${c.participantSid}`));
    for (const row of await this.connections.byParticipant(rejoined, tx)) idOf.set(`${row.roomId} ${row.participantSid}`, row.id);
    // By room: its earliest join, and the non-translator connections the joins opened.
    const activations = new Map<string, Activation>();
    for (const { room, participant } of joins) {
      const activation = activations.get(room.id);
      if (!activation) activations.set(room.id, { room, earliestJoin: participant.joinedAt, newParticipants: 0 });
      else if (participant.joinedAt < activation.earliestJoin) activation.earliestJoin = participant.joinedAt;
    }
    for (const row of inserted) if (row.kind !== 'translator') activations.get(row.roomId)!.newParticipants++;
    await this.activateAll(tx, [...activations.values()]);
    // After room.started (written by activateAll), as it happened.
    for (const row of inserted) {
      const { room } = activations.get(row.roomId)!;
      await this.events.emit(tx, {
        organizationId: room.organization_id,
        type: 'participant.joined',
        roomId: room.id,
        data: participantEventData(room, row),
      });
      if (row.kind !== 'translator') continue;
      const data = { room_id: room.id, room_name: room.name, participant_identity: row.identity, joined_at: row.joinedAt };
      await this.events.emit(tx, { organizationId: room.organization_id, type: 'translator.joined', roomId: room.id, data });
    }
    return opening.map((c) => idOf.get(`${c.roomId} ${c.participantSid}`) ?? null);
  }

  /**
   * Joined rooms are active and start at their earliest join; the usage rollup follows the starts, or
   * counts the participants the joins added. One statement for all the rooms that change.
   */
  private async activateAll(tx: Tx, activations: Activation[]): Promise<void> {
    const changes = activations.flatMap(({ room, earliestJoin, newParticipants }) => {
      const status = nextRoomStatus(room.status, 'participant_connected');
      const starts = status !== room.status;
      const previousStart = room.started_at;
      const moves = previousStart === null || earliestJoin < previousStart;
      return starts || moves
        ? [{ room, status, starts, moves, previousStart, startedAt: moves ? earliestJoin : previousStart!, newParticipants }]
        : [];
    });
    await this.rooms.activate(
      changes.map(({ room, starts, startedAt }) => ({ organizationId: room.organization_id, roomId: room.id, starts, startedAt })),
      tx,
    );
    for (const change of changes) {
      change.room.started_at = change.startedAt;
      if (!change.starts) continue;
      change.room.status = change.status;
      await this.events.emit(tx, { organizationId: change.room.organization_id, type: 'room.started', roomId: change.room.id });
    }
    const moves = changes.filter((c) => c.moves);
    await this.usage.roomStartsChanged(
      tx,
      moves.map((c) => ({
        organizationId: c.room.organization_id,
        roomId: c.room.id,
        previous: c.previousStart,
        joinedParticipants: c.newParticipants,
      })),
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

  /**
   * Ends each connection at its earliest leave (or the room's end, if earlier), whatever order the
   * leaves come in: an open connection closes there, a closed one that ended later moves there (its
   * charge corrected), a later leave changes nothing. A leave that arrives before its join opens the
   * connection first.
   */
  private async leaveAll(tx: Tx, leaves: Leave[]): Promise<void> {
    if (leaves.length === 0) return;
    const earliest = new Map<string, Leave>();
    for (const leave of leaves) {
      const key = `${leave.room.id} ${leave.participant.sid}`;
      const seen = earliest.get(key);
      if (!seen || leave.at < seen.at) earliest.set(key, leave);
    }
    const known = await this.connections.byParticipant(
      [...earliest.values()].map(({ room, participant }) => ({
        organizationId: room.organization_id,
        roomId: room.id,
        participantSid: participant.sid,
      })),
      tx,
    );
    const connectionOf = new Map(known.map((row) => [`${row.roomId} ${row.participantSid}`, row]));
    const closes: { room: RoomRow; connection: OpenConnection; leftAt: Date }[] = [];
    const moves: { room: RoomRow; connection: OpenConnection; leftAt: Date }[] = [];
    for (const [key, leave] of earliest) {
      const leftAt = notAfterRoomEnd(leave.room, leave.at);
      const connection = connectionOf.get(key);
      if (!connection) {
        const [connectionId] = await this.joinAll(tx, [leave]);
        if (connectionId !== null) await this.meter.close(tx, leave.room, connectionId, leftAt);
      } else if (connection.leftAt === null) {
        closes.push({ room: leave.room, connection, leftAt });
      } else if (leftAt < connection.leftAt) {
        moves.push({ room: leave.room, connection, leftAt });
      }
    }
    await this.meter.closeOpenMany(tx, closes);
    await this.meter.moveEndsEarlier(tx, moves);
  }
}

/**
 * A connection that began after its room ended was never part of the call. LiveKit stamps events in
 * whole seconds but joins in milliseconds, so a join within the second of the end is part of it: the
 * answer is then the same whether the join is applied before or after the end.
 */
function joinedAfterEnd(room: RoomRow, participant: { joinedAt: Date }): boolean {
  return !isLiveRoom(room.status) && room.ended_at !== null && participant.joinedAt.getTime() >= room.ended_at.getTime() + 1000;
}

/**
 * A room cannot finish before it was created: such a `room_finished` is about something else (an
 * earlier LiveKit room of the same name, a bad clock) and ends nothing. LiveKit stamps events in whole
 * seconds, so a finish stamped within the second of the creation is this room's.
 */
function finishedBeforeCreated(room: RoomRow, at: Date): boolean {
  return at.getTime() + 1000 <= room.created_at.getTime();
}

/** No connection outlasts its room: one whose end is reported after the room ended closes with the room. */
function notAfterRoomEnd(room: RoomRow, at: Date): Date {
  return !isLiveRoom(room.status) && room.ended_at && room.ended_at < at ? room.ended_at : at;
}

function membershipChange(event: LiveKitEventFacts): 'join' | 'leave' | null {
  if (!event.participant) return null;
  if (event.type === 'participant_joined') return 'join';
  if (event.type === 'participant_left' || event.type === 'participant_connection_aborted') return 'leave';
  return null;
}
