// Longer than ~300 lines on purpose: every change to an organization's glossaries goes through one
// transaction shape (`change`: lock, limits, revision, audit event), and keeping them beside it shows that.

import {
  duplicateTermIssues,
  decodeGlossaryText,
  formatGlossaryText,
  parseGlossaryText,
  type FieldIssue,
  type GlossaryEntry,
  type GlossaryTextFormat,
} from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { RequestValidationError, type ValidationIssue } from '../../common/errors/validation-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import { DatabaseClient, type Transaction } from '../../database/database.client';
import { GlossariesRepository, type GlossaryEntryRow, type GlossaryRow } from './glossaries.repository';
import { GlossaryChangesService } from './glossary-changes.service';
import { AuditLogService, type AuditEntry } from '../audit/audit-log.service';
import {
  ENTRIES_PER_GLOSSARY,
  GLOSSARIES_PER_ORGANIZATION,
  languagesOf,
  readGlossaryEntries,
  readGlossaryEntry,
  tooManyEntries,
  withTermKeys,
} from './glossary-entry-input';
import { createdEntries, type CreateGlossaryDto, type UpdateGlossaryDto } from './glossary.dto';

const GLOSSARY_NOT_FOUND = 'Glossary not found.';

/** What a PUT of a glossary's entries carries: the parsed JSON array, or the bytes of CSV/TSV text. */
export type EntriesBody = { kind: 'json'; value: unknown } | { kind: GlossaryTextFormat; bytes: Uint8Array };

/** A 422 with these issues, their `loc` under `prefix`. */
function invalid(prefix: (string | number)[], issues: readonly FieldIssue[]): RequestValidationError {
  const body: ValidationIssue[] = issues.map((issue) => ({
    loc: [...prefix, ...issue.loc],
    msg: issue.msg,
    type: issue.type,
    input: issue.input ?? null, // an absent body is reported as null (JSON has no undefined)
    ctx: { ...issue.ctx },
  }));
  return new RequestValidationError(body, true);
}

const limitReached = (error: string): FieldIssue => ({
  loc: [],
  type: 'value_error',
  msg: `Value error, ${error}.`,
  input: null,
  ctx: { error },
});

@Injectable()
export class GlossariesService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly glossaries: GlossariesRepository,
    private readonly changes: GlossaryChangesService,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * The one shape of every change: one transaction that first takes the organization's glossary lock
   * (so limits, duplicates and counts hold against concurrent changes) and ends by recording what it
   * changed (`changed` false: nothing a room applies changed) and its audit event.
   */
  private async change<T>(
    actor: Actor,
    work: (tx: Transaction) => Promise<{ result: T; changed: boolean; audit: AuditEntry }>,
  ): Promise<T> {
    const organizationId = actor.organizationId;
    const { result, jobs } = await this.database.transaction(async (tx) => {
      await this.glossaries.lockOrganization(organizationId, tx);
      const { result, changed, audit } = await work(tx);
      await this.audit.record(tx, actor, audit);
      return { result, jobs: changed ? (await this.changes.recorded(tx, organizationId)).jobs : [] };
    });
    await this.changes.flush(jobs);
    return result;
  }

  async create(actor: Actor, dto: CreateGlossaryDto): Promise<GlossaryRow> {
    const organizationId = actor.organizationId;
    const entries = createdEntries(dto);
    const isDefault = dto.default ?? false;
    return this.change(actor, async (tx) => {
      if ((await this.glossaries.count(organizationId, tx)) >= GLOSSARIES_PER_ORGANIZATION) {
        throw invalid(['body'], [limitReached(`an organization holds at most ${GLOSSARIES_PER_ORGANIZATION} glossaries`)]);
      }
      let glossary = await this.glossaries.create(organizationId, dto.name, isDefault, tx);
      if (entries.length > 0) {
        await this.glossaries.insertEntries(glossary.id, organizationId, entries.map(withTermKeys), tx);
        await this.glossaries.setCounts(glossary.id, organizationId, entries.length, languagesOf(entries), tx);
        glossary = (await this.glossaries.get(glossary.id, organizationId, tx)) ?? glossary;
      }
      const affects = entries.length > 0 || isDefault;
      return {
        result: glossary,
        changed: affects,
        audit: {
          action: 'glossary.created',
          target: { type: 'glossary', id: glossary.id },
          details: { name: dto.name, default: isDefault, entry_count: entries.length },
        },
      };
    });
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<GlossaryRow>> {
    return toPage(await this.glossaries.page(actor.organizationId, query.limit + 1, query.offset), query);
  }

  async get(actor: Actor, glossaryId: string): Promise<GlossaryRow> {
    const glossary = await this.glossaries.get(glossaryId, actor.organizationId);
    if (!glossary) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
    return glossary;
  }

  /** A new name changes nothing a room applies; a new `default` does. */
  async update(actor: Actor, glossaryId: string, dto: UpdateGlossaryDto): Promise<GlossaryRow> {
    const organizationId = actor.organizationId;
    return this.change(actor, async (tx) => {
      const locked = await this.glossaries.lock(glossaryId, organizationId, tx);
      if (!locked) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
      const glossary = await this.glossaries.update(
        glossaryId,
        organizationId,
        { name: dto.name ?? null, isDefault: dto.default ?? null },
        tx,
      );
      if (!glossary) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
      const defaultChanged = dto.default !== undefined && dto.default !== locked.isDefault;
      const fields = {
        ...(dto.name !== undefined ? { name: dto.name } : {}),
        ...(dto.default !== undefined ? { default: dto.default } : {}),
      };
      return {
        result: glossary,
        changed: defaultChanged,
        audit: { action: 'glossary.updated', target: { type: 'glossary', id: glossaryId }, details: fields },
      };
    });
  }

  /** Deletes the glossary and its entries; it leaves every room's list that held it. */
  async delete(actor: Actor, glossaryId: string): Promise<void> {
    const organizationId = actor.organizationId;
    await this.change(actor, async (tx) => {
      const deleted = await this.glossaries.delete(glossaryId, organizationId, tx);
      if (!deleted) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
      await this.glossaries.leaveRooms(glossaryId, organizationId, tx);
      return { result: undefined, changed: true, audit: { action: 'glossary.deleted', target: { type: 'glossary', id: glossaryId } } };
    });
  }

  async entries(actor: Actor, glossaryId: string, query: PageQueryDto): Promise<Page<GlossaryEntryRow>> {
    const { organizationId } = actor;
    const rows = await this.glossaries.entryPage(glossaryId, organizationId, query.limit + 1, query.offset);
    if (rows.length === 0 && !(await this.glossaries.get(glossaryId, organizationId))) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
    return toPage(rows, query);
  }

  /** Every entry as CSV/TSV text (read in one snapshot with the glossary's existence). */
  async export(actor: Actor, glossaryId: string, format: GlossaryTextFormat): Promise<string> {
    const { organizationId } = actor;
    const entries = await this.database.transaction(
      async (tx) => {
        if (!(await this.glossaries.get(glossaryId, organizationId, tx))) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
        return this.glossaries.entries(glossaryId, organizationId, tx);
      },
      { isolation: 'repeatable read', readOnly: true },
    );
    return formatGlossaryText(entries, format);
  }

  async addEntry(actor: Actor, glossaryId: string, body: unknown): Promise<GlossaryEntryRow> {
    const organizationId = actor.organizationId;
    const read = readGlossaryEntry(body);
    return this.change(actor, async (tx) => {
      const locked = await this.glossaries.lock(glossaryId, organizationId, tx);
      if (!locked) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
      if (!read.ok) throw invalid(['body'], read.error);
      if (locked.entryCount >= ENTRIES_PER_GLOSSARY) throw invalid(['body'], [tooManyEntries(locked.entryCount + 1)]);
      const added = withTermKeys(read.value);
      const candidates = await this.glossaries.duplicateCandidates(glossaryId, organizationId, added.termKeys, tx);
      const duplicates = duplicateTermIssues([...candidates, read.value]).filter((issue) => issue.loc[0] === candidates.length);
      if (duplicates.length > 0) {
        throw invalid(
          ['body'],
          duplicates.map((issue) => ({
            ...issue,
            loc: issue.loc.slice(1),
            msg: `The term ${JSON.stringify(issue.input)} (${String(issue.loc[2])}) is already in another entry of this glossary.`,
            ctx: {},
          })),
        );
      }
      const entry = await this.glossaries.insertEntry(glossaryId, organizationId, added, tx);
      await this.glossaries.recount(glossaryId, organizationId, tx);
      return {
        result: entry,
        changed: true,
        audit: { action: 'glossary.entry_added', target: { type: 'glossary', id: glossaryId }, details: { entry_id: entry.id } },
      };
    });
  }

  async deleteEntry(actor: Actor, glossaryId: string, entryId: string): Promise<void> {
    const organizationId = actor.organizationId;
    await this.change(actor, async (tx) => {
      if (!(await this.glossaries.lock(glossaryId, organizationId, tx))) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
      if (!(await this.glossaries.deleteEntry(glossaryId, entryId, organizationId, tx)))
        throw ApiError.notFound('Glossary entry not found.');
      await this.glossaries.recount(glossaryId, organizationId, tx);
      return {
        result: undefined,
        changed: true,
        audit: { action: 'glossary.entry_deleted', target: { type: 'glossary', id: glossaryId }, details: { entry_id: entryId } },
      };
    });
  }

  /** Replaces every entry at once; a bad entry or row replaces nothing. */
  async replaceEntries(actor: Actor, glossaryId: string, body: EntriesBody): Promise<{ entry_count: number }> {
    const organizationId = actor.organizationId;
    const entries = this.entriesOf(body);
    return this.change(actor, async (tx) => {
      if (!(await this.glossaries.lock(glossaryId, organizationId, tx))) throw ApiError.notFound(GLOSSARY_NOT_FOUND);
      if (!entries.ok) throw entries.error;
      await this.glossaries.removeEntries(glossaryId, organizationId, tx);
      await this.glossaries.insertEntries(glossaryId, organizationId, entries.value.map(withTermKeys), tx);
      await this.glossaries.setCounts(glossaryId, organizationId, entries.value.length, languagesOf(entries.value), tx);
      return {
        result: { entry_count: entries.value.length },
        changed: true,
        audit: {
          action: 'glossary.entries_replaced',
          target: { type: 'glossary', id: glossaryId },
          details: { entry_count: entries.value.length, format: body.kind },
        },
      };
    });
  }

  /** The entries of a PUT body, or the 422 it gets (raised after the 404 check, as a path comes first). */
  private entriesOf(body: EntriesBody): { ok: true; value: GlossaryEntry[] } | { ok: false; error: RequestValidationError } {
    if (body.kind === 'json') {
      const read = readGlossaryEntries(body.value);
      return read.ok ? read : { ok: false, error: invalid(['body'], read.error) };
    }
    // Bytes that are not UTF-8 are named at their line, never stored as U+FFFD.
    const text = decodeGlossaryText(body.bytes);
    if (!text.ok) return { ok: false, error: invalid(['body'], text.error) };
    // PostgreSQL text cannot hold U+0000: named at its line like any other bad cell.
    const nul = text.value.indexOf('\u0000');
    if (nul >= 0) {
      const line = text.value.slice(0, nul).split('\n').length;
      const issue: FieldIssue = {
        loc: [line],
        type: 'string_pattern_mismatch',
        msg: `Line ${line}: the NUL character is not allowed.`,
        input: null,
      };
      return { ok: false, error: invalid(['body'], [issue]) };
    }
    const parsed = parseGlossaryText(text.value, body.kind);
    if (!parsed.ok) return { ok: false, error: invalid(['body'], parsed.error) };
    if (parsed.value.length > ENTRIES_PER_GLOSSARY) return { ok: false, error: invalid(['body'], [tooManyEntries(parsed.value.length)]) };
    return parsed;
  }

  /** The glossaries the room uses now: its own list once set, else the organization's defaults, newest first. */
  async roomGlossaries(actor: Actor, roomId: string): Promise<{ glossary_ids: string[] }> {
    const list = await this.glossaries.roomList(roomId, actor.organizationId);
    if (!list) throw ApiError.notFound('Room not found.');
    return { glossary_ids: list.own ?? list.defaults };
  }

  /** Sets the room's own list (ids validated by the DTO: 0–5 UUIDs, each once). */
  async setRoomGlossaries(actor: Actor, roomId: string, glossaryIds: string[]): Promise<{ glossary_ids: string[] }> {
    const organizationId = actor.organizationId;
    const ids = glossaryIds.map((id) => id.toLowerCase());
    return this.change(actor, async (tx) => {
      if (!(await this.glossaries.roomList(roomId, organizationId, tx))) throw ApiError.notFound('Room not found.');
      const owned = await this.glossaries.owned(organizationId, ids, tx);
      const foreign = ids.flatMap((id, index): FieldIssue[] =>
        owned.has(id)
          ? []
          : [
              {
                loc: ['glossary_ids', index],
                type: 'value_error',
                msg: 'Value error, no such glossary.',
                input: glossaryIds[index],
                ctx: { error: 'no such glossary' },
              },
            ],
      );
      if (foreign.length > 0) throw invalid(['body'], foreign);
      await this.glossaries.setRoomList(roomId, organizationId, ids, tx);
      return {
        result: { glossary_ids: ids },
        changed: true,
        audit: { action: 'room.glossaries_set', target: { type: 'room', id: roomId }, details: { glossary_ids: ids } },
      };
    });
  }
}
