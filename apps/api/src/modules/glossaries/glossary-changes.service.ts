import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../database/database.client';
import { GlossariesRepository } from './glossaries.repository';

/**
 * Which rooms a glossary change may affect:
 * - `room`: one room's own list was set.
 * - `glossaries`: these glossaries' entries, default flag or existence changed (`defaultChanged`: the
 *   organization's defaults changed, so every room without a list of its own is affected); `roomIds`:
 *   rooms whose own list changed as a side effect (a deleted glossary left them).
 */
export type GlossaryChange =
  { kind: 'room'; roomId: string } | { kind: 'glossaries'; glossaryIds: string[]; defaultChanged: boolean; roomIds: string[] };

/**
 * The one place every glossary change ends, inside its transaction: the organization's revision goes
 * up by one (what translators compare their compiled glossaries against).
 */
@Injectable()
export class GlossaryChangesService {
  constructor(private readonly glossaries: GlossariesRepository) {}

  /** Records the change in the caller's transaction; returns the organization's new revision. */
  async recorded(tx: Transaction, organizationId: string, affected: GlossaryChange): Promise<number> {
    void affected; // the affected rooms are for the delivery to live translators (not yet built)
    return this.glossaries.bumpRevision(organizationId, tx);
  }
}
