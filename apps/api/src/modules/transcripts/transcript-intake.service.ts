import type { TranscriptSegmentReport } from '@app/contracts';
import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { TranscriptsRepository, type CommittedWords, type SegmentRecord } from './transcripts.repository';

const MAX_TEXT = 10_000;
const MAX_REVISED_WORDS = 1_000;

const text = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max && !value.includes('\u0000');

/**
 * Stores the translator's segment reports: once per room and segment id (a re-sent job, a retried
 * batch, a restarted agent never double a line), only while the room's transcript is open, and
 * never for an organization that turned storing off. Reports arriving together share one insert
 * (TranscriptsRepository.storeSegment).
 */
@Injectable()
export class TranscriptIntakeService {
  constructor(private readonly transcripts: TranscriptsRepository) {}

  /** True when this report wrote its segment; false for a duplicate, a closed or unknown room, storing off, or a malformed report. */
  async record(report: TranscriptSegmentReport): Promise<boolean> {
    const record = recordOf(report);
    if (!record) return false;
    return this.transcripts.storeSegment(record);
  }
}

/** The report as a row, or null when it cannot be one (the queue is ours, but a job is data from another process). */
function recordOf(report: TranscriptSegmentReport): SegmentRecord | null {
  const startedAt = new Date(report.startedAt);
  const endedAt = new Date(report.endedAt);
  const translation = report.translation;
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
    committed: committedOf(report.committed),
  };
}

/**
 * The committed words as stored: absent (an older agent, or an utterance translated whole) or malformed
 * is null, and the segment is stored without them: they qualify its translation, they are not the line.
 */
function committedOf(committed: unknown): CommittedWords | null {
  if (typeof committed !== 'object' || committed === null) return null;
  const { text: said, revisedWords } = committed as { text?: unknown; revisedWords?: unknown };
  if (!text(said, MAX_TEXT) || !Array.isArray(revisedWords) || revisedWords.length > MAX_REVISED_WORDS) return null;
  if (!revisedWords.every((word) => text(word, 200))) return null;
  return { text: said, revisedWords: revisedWords as string[] };
}
