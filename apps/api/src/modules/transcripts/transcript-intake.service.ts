import type { TranscriptSegmentReport } from '@app/contracts';
import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { Coalescer } from '../../common/batching/coalescer';
import { TranscriptsRepository, type SegmentRecord } from './transcripts.repository';
import { DatabaseClient } from '../../database/database.client';

const MAX_TEXT = 10_000;

interface Pending {
  record: SegmentRecord;
  stored: boolean;
}

/**
 * Stores the translator's segment reports: once per room and segment id (a re-sent job, a retried
 * batch, a restarted agent never double a line), only while the room's transcript is open, and
 * never for an organization that turned storing off. Reports arriving together share one insert.
 */
@Injectable()
export class TranscriptIntakeService {
  private readonly writes: Coalescer<Pending>;

  constructor(
    private readonly transcripts: TranscriptsRepository,
    private readonly database: DatabaseClient,
  ) {
    this.writes = new Coalescer<Pending>(
      async (batch) => {
        const stored = await this.database.oneStatement((tx) =>
          this.transcripts.store(
            batch.map((pending) => pending.record),
            tx,
          ),
        );
        for (const pending of batch) pending.stored = stored.has(`${pending.record.roomId} ${pending.record.segmentId}`);
      },
      { maxBatch: 500, parallel: 2 },
    );
  }

  /** True when this report wrote its segment; false for a duplicate, a closed or unknown room, storing off, or a malformed report. */
  async record(report: TranscriptSegmentReport): Promise<boolean> {
    const record = recordOf(report);
    if (!record) return false;
    const pending: Pending = { record, stored: false };
    await this.writes.submit(pending);
    return pending.stored;
  }
}

/** The report as a row, or null when it cannot be one (the queue is ours, but a job is data from another process). */
function recordOf(report: TranscriptSegmentReport): SegmentRecord | null {
  const startedAt = new Date(report.startedAt);
  const endedAt = new Date(report.endedAt);
  const translation = report.translation;
  const text = (value: unknown, max: number) =>
    typeof value === 'string' && value.length > 0 && value.length <= max && !value.includes('\u0000');
  if (
    !isUUID(report.roomId) ||
    typeof report.livekitRoom !== 'string' ||
    !text(report.segmentId, 200) ||
    !text(report.participantIdentity, 128) ||
    !text(report.language, 35) ||
    !text(report.text, MAX_TEXT) ||
    Number.isNaN(startedAt.getTime()) ||
    Number.isNaN(endedAt.getTime()) ||
    (translation !== null && (!text(translation?.language, 35) || !text(translation?.text, MAX_TEXT)))
  ) {
    return null;
  }
  return {
    roomId: report.roomId,
    livekitRoom: report.livekitRoom,
    segmentId: report.segmentId,
    participantIdentity: report.participantIdentity,
    language: report.language,
    text: report.text,
    translation: translation === null ? null : { language: translation.language, text: translation.text },
    startedAt,
    endedAt: endedAt < startedAt ? startedAt : endedAt,
  };
}
