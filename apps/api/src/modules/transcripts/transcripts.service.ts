import { exportTranscript, transcriptOrigin, type TranscriptFormat } from '@app/domain/transcripts';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { RequestValidationError } from '../../common/errors/validation-error';
import { toPage, type Page } from '../../common/pagination/page';
import { RoomTokensRepository } from '../rooms/room-tokens.repository';
import type { TranscriptQueryDto, TranscriptSegmentView, TranscriptSettingsDto, TranscriptSettingsView } from './transcript.dto';
import { TranscriptsRepository, type TranscriptRoom } from './transcripts.repository';
import { DatabaseClient } from '../../database/database.client';
import { AuditLogService } from '../audit/audit-log.service';

const ROOM_NOT_FOUND = 'Room not found.';

/** Reading, exporting and erasing a room's transcript; the organization's transcript settings. */
@Injectable()
export class TranscriptsService {
  constructor(
    private readonly transcripts: TranscriptsRepository,
    private readonly tokens: RoomTokensRepository,
    private readonly database: DatabaseClient,
    private readonly audit: AuditLogService,
  ) {}

  async page(actor: Actor, roomId: string, query: TranscriptQueryDto): Promise<Page<TranscriptSegmentView>> {
    await this.room(actor, roomId);
    const rows = await this.transcripts.page(actor.organizationId, roomId, { limit: query.limit + 1, offset: query.offset });
    return toPage(rows, query);
  }

  /** The whole transcript as WebVTT or SRT text. */
  async export(actor: Actor, roomId: string, format: TranscriptFormat, language: string | undefined): Promise<string> {
    const room = await this.room(actor, roomId);
    // A room holds the languages of the join tokens issued for it; only a per-language export asks.
    const issued = language === undefined ? [] : await this.tokens.issuedLanguages(actor.organizationId, roomId);
    if (language !== undefined && !issued.includes(language)) {
      const held = issued.length === 0 ? 'none' : issued.join(', ');
      throw new RequestValidationError([
        {
          loc: ['query', 'language'],
          msg: `The room has never held this language (it has held: ${held})`,
          type: 'language_not_held',
          input: language,
          ctx: { held: issued },
        },
      ]);
    }
    const segments = await this.transcripts.all(actor.organizationId, roomId);
    return exportTranscript(segments, {
      format,
      language: language ?? null,
      origin: transcriptOrigin(room.startedAt, segments[0]?.startedAt ?? null),
    });
  }

  /** Idempotent: erasing an empty transcript is 204 too. */
  async erase(actor: Actor, roomId: string): Promise<void> {
    await this.room(actor, roomId);
    await this.database.transaction(async (tx) => {
      const erased = await this.transcripts.erase(actor.organizationId, roomId, tx);
      await this.audit.record(tx, actor, { action: 'transcript.erased', target: { type: 'room', id: roomId }, details: { erased } });
    });
  }

  async settings(actor: Actor): Promise<TranscriptSettingsView> {
    const { store, retentionDays } = await this.transcripts.settings(actor.organizationId);
    return { store, retention_days: retentionDays };
  }

  async saveSettings(actor: Actor, dto: TranscriptSettingsDto): Promise<TranscriptSettingsView> {
    const settings = { store: dto.store, retentionDays: dto.retention_days };
    await this.database.transaction(async (tx) => {
      await this.transcripts.saveSettings(actor.organizationId, settings, tx);
      await this.audit.record(tx, actor, {
        action: 'transcripts.settings_changed',
        target: { type: 'organization', id: actor.organizationId },
        details: { store: dto.store, retention_days: dto.retention_days },
      });
    });
    return { store: dto.store, retention_days: dto.retention_days };
  }

  private async room(actor: Actor, roomId: string): Promise<TranscriptRoom> {
    const room = await this.transcripts.room(actor.organizationId, roomId);
    if (!room) throw ApiError.notFound(ROOM_NOT_FOUND);
    return room;
  }
}
