import { Injectable } from '@nestjs/common';
import type { Sql, Tx } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type {
  IHoldChangesBackQuery,
  IHoldDeliveriesBackQuery,
  ITranslatorRoomsQuery,
  ITranslatorRoomsResult,
} from './glossary-delivery.repository.types';

// One lock per organization between what reads a room's glossaries for a dispatch (shared: dispatches
// never wait for each other) and a change's delivery (exclusive), so that a dispatch never carries
// glossaries older than a change that missed its room (the change not yet seeing the translator).
const HOLD_CHANGES_BACK = sql<IHoldChangesBackQuery>`SELECT pg_advisory_xact_lock_shared(hashtextextended('glossaries:' || $organizationId!::text, 0))`;

const HOLD_DELIVERIES_BACK = sql<IHoldDeliveriesBackQuery>`SELECT pg_advisory_xact_lock(hashtextextended('glossaries:' || $organizationId!::text, 0))`;

const TRANSLATOR_ROOMS = sql<ITranslatorRoomsQuery>`SELECT id, livekit_name, translator_generation FROM rooms
  WHERE organization_id = $organizationId! AND translator_present AND status <> 'ended'`;

export type TranslatorRoom = ITranslatorRoomsResult;

/** What delivering glossaries to live translators reads: the organization's lock, and its rooms with a translator. */
@Injectable()
export class GlossaryDeliveryRepository {
  /** Taken before reading a room's glossaries for its dispatch, in the dispatch's transaction. */
  async holdChangesBack(organizationId: string, tx: Tx): Promise<void> {
    await tx.rows(HOLD_CHANGES_BACK, { organizationId });
  }

  /** Taken by a change before it looks for the translators to tell, in the change's transaction. */
  async holdDeliveriesBack(organizationId: string, tx: Tx): Promise<void> {
    await tx.rows(HOLD_DELIVERIES_BACK, { organizationId });
  }

  /** The organization's rooms that have (or are getting) a translator now. */
  async translatorRooms(organizationId: string, tx: Sql): Promise<TranslatorRoom[]> {
    return tx.rows(TRANSLATOR_ROOMS, { organizationId });
  }
}
