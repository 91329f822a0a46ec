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

/** Applies one stored LiveKit event to rooms and connections, under the room's row lock. */
@Injectable()
export class LiveKitEventProcessor {
  constructor(
    private readonly lifecycle: RoomLifecycle,
    private readonly meter: ConnectionMeter,
    private readonly translator: TranslatorPresence,
    private readonly usage: UsageRollup,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async apply(tx: EntityManager, payload: unknown): Promise<OutboxJob[]> {
    const event = readLiveKitEvent(payload);
    if (!event.livekitRoom) return [];
    const room = await this.lifecycle.lock(tx, { livekitName: event.livekitRoom });
    if (!room) return [];
    switch (event.type) {
      case 'participant_joined': {
        if (!event.participant) return [];
        const connectionId = await this.joined(tx, room, event.participant);
        // A join reported after the room ended was part of the call: it ended with the room.
        if (room.status === 'ended' && room.ended_at && connectionId !== null) await this.meter.close(tx, connectionId, room.ended_at);
        return this.translator.reconcile(tx, room);
      }
      case 'participant_left':
      case 'participant_connection_aborted':
        if (!event.participant) return [];
        await this.left(tx, room, event.participant, event.createdAt);
        return this.translator.reconcile(tx, room);
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
    await this.moveStart(tx, room.id, participant.joinedAt, inserted.length > 0 && kind !== 'translator');
    if (inserted[0]) return inserted[0].id;
    const [existing] = (await tx.query(`SELECT id FROM connections WHERE room_id = $1 AND participant_sid = $2`, [
      room.id,
      participant.sid,
    ])) as { id: number }[];
    return existing?.id ?? null;
  }

  /** A room starts at its earliest join; the usage rollup follows the start, or counts the new participant. */
  private async moveStart(tx: EntityManager, roomId: string, joinedAt: Date, newParticipant: boolean): Promise<void> {
    const [room] = (await tx.query(`SELECT started_at FROM rooms WHERE id = $1`, [roomId])) as { started_at: Date | null }[];
    if (room.started_at === null || joinedAt < room.started_at) {
      await tx.query(`UPDATE rooms SET started_at = $2 WHERE id = $1`, [roomId, joinedAt]);
      await this.usage.roomStartChanged(tx, roomId, room.started_at, newParticipant ? 1 : 0);
    } else if (newParticipant) {
      await this.usage.addToRoom(tx, roomId, { minutes: 0, participants: 1 });
    }
  }

  /** Closes the connection at the event's time; a `left` that arrives before its `joined` opens it first. */
  private async left(tx: EntityManager, room: RoomRow, participant: Participant, at: Date): Promise<void> {
    const [known] = (await tx.query(
      `SELECT id, organization_id, room_id, joined_at, cents_per_minute, left_at FROM connections WHERE room_id = $1 AND participant_sid = $2`,
      [room.id, participant.sid],
    )) as (OpenConnection & { left_at: Date | null })[];
    if (known) {
      if (known.left_at === null) await this.meter.closeOpen(tx, known, at);
      return;
    }
    const connectionId = await this.joined(tx, room, participant);
    if (connectionId !== null) await this.meter.close(tx, connectionId, at);
  }
}
