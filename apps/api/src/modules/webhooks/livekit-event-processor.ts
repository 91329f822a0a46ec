import { participantClassOf, type ParticipantKind } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { OutboxJob } from '../../queue/outbox';
import { RoomLifecycle } from '../rooms/room-lifecycle';
import type { RoomRow } from '../rooms/room-queries';
import { TranslatorPresence } from '../rooms/translator-presence';
import { readLiveKitEvent, type LiveKitEventFacts } from './livekit-event';
import { ConnectionMeter, type OpenConnection } from '../metering/connection-meter';
import { UsageRollup } from '../usage/usage-rollup';

type Participant = NonNullable<LiveKitEventFacts['participant']>;

/**
 * Applies stored LiveKit events to rooms and connections. A batch locks each of its rooms once (in
 * id order, so two batches never deadlock), applies each room's events in event-time order, then
 * decides the translator's presence once per room from where the room ended up.
 */
@Injectable()
export class LiveKitEventProcessor {
  constructor(
    private readonly lifecycle: RoomLifecycle,
    private readonly meter: ConnectionMeter,
    private readonly translator: TranslatorPresence,
    private readonly usage: UsageRollup,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async applyBatch(tx: EntityManager, payloads: unknown[]): Promise<OutboxJob[]> {
    const byRoom = new Map<string, LiveKitEventFacts[]>();
    for (const event of payloads.map(readLiveKitEvent)) {
      if (!event.livekitRoom) continue;
      byRoom.set(event.livekitRoom, [...(byRoom.get(event.livekitRoom) ?? []), event]);
    }
    if (byRoom.size === 0) return [];
    const rooms = await this.lifecycle.lockAll(tx, [...byRoom.keys()]);
    const jobs: OutboxJob[] = [];
    for (const room of rooms) {
      // A stable sort: events of the same instant keep the order they were received in.
      const events = byRoom.get(room.livekit_name)!.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      for (const event of events) jobs.push(...(await this.applyOne(tx, room, event)));
    }
    jobs.push(...(await this.translator.reconcileAll(tx, rooms)));
    return jobs;
  }

  private async applyOne(tx: EntityManager, room: RoomRow, event: LiveKitEventFacts): Promise<OutboxJob[]> {
    switch (event.type) {
      case 'participant_joined': {
        if (!event.participant) return [];
        const connectionId = await this.joined(tx, room, event.participant);
        // A join reported after the room ended was part of the call: it ended with the room.
        if (room.status === 'ended' && room.ended_at && connectionId !== null)
          await this.meter.close(tx, room, connectionId, room.ended_at);
        return [];
      }
      case 'participant_left':
      case 'participant_connection_aborted':
        if (event.participant) await this.left(tx, room, event.participant, event.createdAt);
        return [];
      case 'room_finished':
        return this.lifecycle.endLocked(tx, room, event.createdAt);
      default:
        return [];
    }
  }

  /** Opens the connection (once per participant sid) and moves the room to active. */
  private async joined(tx: EntityManager, room: RoomRow, participant: Participant): Promise<number | null> {
    // The connection now holds its token's languages: the token's short reservation is over.
    const [[token]] = (await tx.query(
      `UPDATE room_tokens SET reserved_until = NULL WHERE room_id = $1 AND identity = $2 RETURNING kind, languages`,
      [room.id, participant.identity],
    )) as [{ kind: ParticipantKind; languages: string[] }[], number];
    const kind: ParticipantKind | null = participant.isAgent ? 'translator' : (token?.kind ?? null);
    const rate =
      participantClassOf(kind ?? 'member') === 'translator'
        ? this.config.rates.translatorCentsPerMinute
        : this.config.rates.participantCentsPerMinute;
    const inserted = (await tx.query(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (room_id, participant_sid) DO NOTHING RETURNING id`,
      [
        room.id,
        room.organization_id,
        participant.sid,
        participant.identity,
        kind,
        participant.isAgent ? null : (token?.languages ?? null),
        participant.joinedAt,
        rate,
      ],
    )) as { id: number }[];
    if (room.status === 'created') {
      await tx.query(`UPDATE rooms SET status = 'active' WHERE id = $1`, [room.id]);
      room.status = 'active';
    }
    await this.moveStart(tx, room, participant.joinedAt, inserted.length > 0 && kind !== 'translator');
    if (inserted[0]) return inserted[0].id;
    const [existing] = (await tx.query(`SELECT id FROM connections WHERE room_id = $1 AND participant_sid = $2`, [
      room.id,
      participant.sid,
    ])) as { id: number }[];
    return existing?.id ?? null;
  }

  /** A room starts at its earliest join; the usage rollup follows the start, or counts the new participant. */
  private async moveStart(tx: EntityManager, room: RoomRow, joinedAt: Date, newParticipant: boolean): Promise<void> {
    const startedAt = room.started_at;
    if (startedAt === null || joinedAt < startedAt) {
      await tx.query(`UPDATE rooms SET started_at = $2 WHERE id = $1`, [room.id, joinedAt]);
      room.started_at = joinedAt;
      await this.usage.roomStartChanged(tx, room.id, startedAt, newParticipant ? 1 : 0);
    } else if (newParticipant) {
      await this.usage.addToRoom(tx, { organizationId: room.organization_id, startedAt }, { minutes: 0, participants: 1 });
    }
  }

  /** Closes the connection at the event's time; a `left` that arrives before its `joined` opens it first. */
  private async left(tx: EntityManager, room: RoomRow, participant: Participant, at: Date): Promise<void> {
    const [known] = (await tx.query(
      `SELECT id, organization_id, room_id, joined_at, cents_per_minute, left_at FROM connections WHERE room_id = $1 AND participant_sid = $2`,
      [room.id, participant.sid],
    )) as (OpenConnection & { left_at: Date | null })[];
    if (known) {
      if (known.left_at === null) await this.meter.closeOpen(tx, room, known, at);
      return;
    }
    const connectionId = await this.joined(tx, room, participant);
    if (connectionId !== null) await this.meter.close(tx, room, connectionId, at);
  }
}
