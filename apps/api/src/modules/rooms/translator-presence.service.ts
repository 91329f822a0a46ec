import { QUEUES, TRANSLATOR_JOBS, type TranslatorDismissJob, type TranslatorDispatchJob } from '@app/contracts';
import { isLiveRoom } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { OutboxJob } from '../../queue/outbox.publisher';
import { ConnectionsRepository } from '../metering/connections.repository';
import type { RoomRow } from './room-rows';
import { RoomsRepository } from './rooms.repository';
import { TranslatorGlossariesService } from './translator-glossaries.service';
import type { Tx } from '../../database/sql';

/**
 * Decides whether the room wants its translator, from the languages its connected people hold.
 * Each change of that want bumps a generation; the job id carries it, so a repeated event yields
 * the same job id (a no-op) and the agent can drop a job older than the latest it has seen.
 * The jobs are returned for the caller to write to the outbox with its transaction.
 */
@Injectable()
export class TranslatorPresenceService {
  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly rooms: RoomsRepository,
    private readonly glossaries: TranslatorGlossariesService,
  ) {}

  async reconcile(tx: Tx, room: RoomRow): Promise<OutboxJob[]> {
    return this.reconcileAll(tx, [room]);
  }

  /** Reconciles several locked rooms: one query reads the languages they hold, one statement flips those that change. */
  async reconcileAll(tx: Tx, rooms: RoomRow[]): Promise<OutboxJob[]> {
    if (rooms.length === 0) return [];
    const held = await this.connections.connectedLanguages(
      rooms.map((room) => ({ organizationId: room.organization_id, id: room.id })),
      tx,
    );
    const changed = rooms.filter((room) => wantsTranslator(room, held.get(room.id) ?? []) !== room.translator_present);
    if (changed.length === 0) return [];
    await this.rooms.flipTranslatorPresence(
      changed.map((room) => ({ organizationId: room.organization_id, id: room.id })),
      tx,
    );
    const jobs: OutboxJob[] = [];
    for (const room of changed) {
      const languages = held.get(room.id) ?? [];
      room.translator_present = !room.translator_present;
      room.translator_generation += 1;
      const base = { roomId: room.id, livekitRoom: room.livekit_name, generation: room.translator_generation };
      if (room.translator_present) {
        const pair: [string, string] = [languages[0], languages[1]];
        const payload: TranslatorDispatchJob = {
          ...base,
          languages: pair,
          mode: room.streaming_mode ?? 'dual',
          glossaries: await this.glossaries.forDispatch(tx, {
            organizationId: room.organization_id,
            id: room.id,
            languages: pair,
            generation: room.translator_generation,
          }),
        };
        jobs.push({
          queue: QUEUES.translatorPresence,
          name: TRANSLATOR_JOBS.dispatch,
          jobId: `${room.id}.${base.generation}.dispatch`,
          payload,
        });
      } else {
        const payload: TranslatorDismissJob = base;
        jobs.push({
          queue: QUEUES.translatorPresence,
          name: TRANSLATOR_JOBS.dismiss,
          jobId: `${room.id}.${base.generation}.dismiss`,
          payload,
        });
      }
    }
    return jobs;
  }
}

function wantsTranslator(room: RoomRow, languages: string[]): boolean {
  return isLiveRoom(room.status) && languages.length >= 2;
}
