import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../database/database.client';
import { OutboxPublisher, type OutboxJob } from '../../queue/outbox.publisher';
import { TranslatorGlossariesService } from '../rooms/translator-glossaries.service';
import { GlossariesRepository } from './glossaries.repository';

/**
 * The one place every glossary change ends, inside its transaction: the organization's revision goes
 * up by one, and every room of the organization with a translator gets its glossaries again under
 * that revision (a translator.glossary job in the outbox; the caller flushes it after commit).
 * Every such room is told, not only those the change touched: an organization has few live
 * translators, and a room told the same glossaries again applies them once.
 */
@Injectable()
export class GlossaryChangesService {
  constructor(
    private readonly glossaries: GlossariesRepository,
    private readonly translators: TranslatorGlossariesService,
    private readonly outbox: OutboxPublisher,
  ) {}

  /** Records the change in the caller's transaction: the organization's new revision, and the jobs to flush after commit. */
  async recorded(tx: Transaction, organizationId: string): Promise<{ revision: number; jobs: OutboxJob[] }> {
    const revision = await this.glossaries.bumpRevision(organizationId, tx);
    const jobs = await this.translators.afterChange(tx, organizationId);
    await this.outbox.write(tx, jobs);
    return { revision, jobs };
  }

  /** After the change's transaction committed: its jobs go to the queue now (the outbox's sweeper otherwise, within 5 s). */
  async flush(jobs: OutboxJob[]): Promise<void> {
    await this.outbox.flush(jobs);
  }
}
