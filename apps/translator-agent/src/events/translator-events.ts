import { QUEUES, type TranscriptSegmentReport, type TranslatorEventJob } from '@app/contracts';
import { Queue } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
import type { DirectionReport } from '../translation/latency-tracker';
import type { FinalSegment } from '../translation/speaker-stream';

/** A final segment as the translator-events job carries it: ISO 8601 UTC times, millisecond precision. */
export function segmentReport(session: { roomId: string; livekitRoom: string }, s: FinalSegment, at = new Date()): TranscriptSegmentReport {
  return {
    type: 'segment',
    roomId: session.roomId,
    livekitRoom: session.livekitRoom,
    at: at.toISOString(),
    segmentId: s.segmentId,
    participantIdentity: s.speakerIdentity,
    language: s.language,
    text: s.text,
    translation: s.translation ? { language: s.translation.language, text: s.translation.text } : null,
    startedAt: new Date(s.startedAt).toISOString(),
    endedAt: new Date(s.endedAt).toISOString(),
    ...(s.committed ? { committed: { text: s.committed.text, revisedWords: [...s.committed.revisedWords] } } : {}),
  };
}

/**
 * Reports one translator session (one LiveKit job) to the API over the translator-events queue.
 * Job ids are deterministic per session and report, so a re-sent report is stored once.
 */
export class TranslatorEventsReporter {
  private readonly connection: Redis;
  private readonly queue: Queue<TranslatorEventJob>;
  private sequence = 0;

  constructor(
    redisUrl: string,
    prefix: string,
    private readonly session: { id: string; roomId: string; livekitRoom: string },
  ) {
    this.connection = new IORedis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'translator-agent-events' });
    this.queue = new Queue<TranslatorEventJob>(QUEUES.translatorEvents, { connection: this.connection, prefix });
  }

  private async add(key: string, event: TranslatorEventJob): Promise<void> {
    await this.queue.add(event.type as never, event as never, {
      jobId: `${this.session.id}.${key}`,
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: 1000,
      removeOnFail: 5000,
    });
  }

  joined(at = new Date()): Promise<void> {
    return this.add('joined', { type: 'joined', roomId: this.session.roomId, livekitRoom: this.session.livekitRoom, at: at.toISOString() });
  }

  left(at = new Date()): Promise<void> {
    return this.add('left', { type: 'left', roomId: this.session.roomId, livekitRoom: this.session.livekitRoom, at: at.toISOString() });
  }

  /** One final segment of the room's transcript (job id `<session>.segment.<segmentId>`: a re-sent one is stored once). */
  segment(s: FinalSegment, at = new Date()): Promise<void> {
    return this.add(`segment.${s.segmentId.replaceAll(':', '_')}`, segmentReport(this.session, s, at)); // BullMQ ids cannot hold ':'
  }

  async latency(reports: DirectionReport[], at = new Date()): Promise<void> {
    if (reports.length === 0) return;
    this.sequence += 1;
    for (const r of reports) {
      await this.add(`latency.${this.sequence}.${r.direction}`, {
        type: 'latency',
        roomId: this.session.roomId,
        livekitRoom: this.session.livekitRoom,
        at: at.toISOString(),
        direction: r.direction,
        p50Ms: r.p50Ms,
        p95Ms: r.p95Ms,
        samples: r.samples,
        audioSeconds: r.audioSeconds,
      });
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.connection.quit().catch(() => undefined);
  }
}
