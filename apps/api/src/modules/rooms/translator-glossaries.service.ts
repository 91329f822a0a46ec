import { QUEUES, TRANSLATOR_JOBS, type RoomGlossaries, type TranslatorGlossaryJob } from '@app/contracts';
import { compileRoomGlossaries } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { Tx } from '../../database/sql';
import type { OutboxJob } from '../../queue/outbox.publisher';
import { GlossariesRepository, type GlossariesInUse } from '../glossaries/glossaries.repository';
import { GlossaryDeliveryRepository } from '../glossaries/glossary-delivery.repository';
import { ConnectionsRepository } from '../metering/connections.repository';

/** A room a translator serves: the pair it serves (the first two languages its people hold, sorted), and its dispatch's generation. */
export interface TranslatorRoom {
  organizationId: string;
  id: string;
  languages: [string, string];
  generation: number;
}

/**
 * The version a translator compares: the organization's glossary revision, then the room's translator
 * generation, so that a later dispatch (perhaps for another pair) replaces what an earlier one left
 * under the same revision. Generations stay far below 2^24; versions stay exact integers.
 */
export function glossaryVersion(revision: number, generation: number): number {
  return revision * 2 ** 24 + generation;
}

/**
 * What a room's translator applies of its glossaries: compiled for its pair with the organization's
 * glossary revision as the version, sent with its dispatch and again after every change, so a live
 * room applies a change from its next utterance (extensions.md "Glossaries").
 */
@Injectable()
export class TranslatorGlossariesService {
  constructor(
    private readonly glossaries: GlossariesRepository,
    private readonly delivery: GlossaryDeliveryRepository,
    private readonly connections: ConnectionsRepository,
  ) {}

  /** For a dispatch, in its transaction: the room's glossaries now, compiled for the pair. */
  async forDispatch(tx: Tx, room: TranslatorRoom): Promise<RoomGlossaries> {
    await this.delivery.holdChangesBack(room.organizationId, tx);
    const inUse = await this.glossaries.glossariesInUse(room.organizationId, room.id, tx);
    return compiled(inUse, room.languages, room.generation);
  }

  /**
   * After a change, in its transaction: one translator.glossary job for each room of the organization
   * with a translator, carrying its glossaries as the change left them (read for all those rooms at once).
   */
  async afterChange(tx: Tx, organizationId: string): Promise<OutboxJob[]> {
    await this.delivery.holdDeliveriesBack(organizationId, tx);
    const rooms = await this.delivery.translatorRooms(organizationId, tx);
    const held = await this.connections.connectedLanguages(
      rooms.map((room) => ({ organizationId, id: room.id })),
      tx,
    );
    const served = rooms.flatMap((room) => {
      const languages = held.get(room.id) ?? [];
      // Fewer than two: its dismiss is on the way.
      return languages.length < 2 ? [] : [{ room, languages: [languages[0], languages[1]] as [string, string] }];
    });
    if (served.length === 0) return [];
    const inUse = await this.glossaries.glossariesInUseByRoom(
      organizationId,
      served.map(({ room }) => room.id),
      tx,
    );
    // Rooms that apply the same glossaries for the same pair share one compilation (the defaults, usually).
    const compiledOnce = new Map<string, RoomGlossaries>();
    return served.map(({ room, languages }): OutboxJob => {
      const glossaries = compiled(inUse.get(room.id), languages, room.translator_generation, compiledOnce);
      const payload: TranslatorGlossaryJob = { roomId: room.id, livekitRoom: room.livekit_name, glossaries };
      return {
        queue: QUEUES.translatorPresence,
        name: TRANSLATOR_JOBS.glossary,
        jobId: `${room.id}.glossaries.${glossaries.version}`,
        payload,
      };
    });
  }
}

/**
 * What a room applies, compiled for its pair, versioned by the revision read and the room's generation.
 * `compiledOnce` (key: the pair and the glossaries' ids) lets rooms with the same list share the work.
 */
function compiled(
  inUse: GlossariesInUse | undefined,
  languages: [string, string],
  generation: number,
  compiledOnce = new Map<string, RoomGlossaries>(),
): RoomGlossaries {
  const lists = inUse?.glossaries ?? [];
  const version = glossaryVersion(inUse?.revision ?? 0, generation);
  const key = `${languages.join('>')}:${lists.map((glossary) => glossary.id).join(',')}`;
  let shared = compiledOnce.get(key);
  if (!shared) {
    shared = compileRoomGlossaries(
      lists.map((glossary) => glossary.entries),
      languages,
      version,
    );
    compiledOnce.set(key, shared);
  }
  return { ...shared, version };
}
