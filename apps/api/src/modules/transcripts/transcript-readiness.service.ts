import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import { PeriodicJobsScheduler } from '../../queue/periodic-jobs.scheduler';
import { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import { RoomsRepository } from '../rooms/rooms.repository';
import { TranscriptsRepository } from './transcripts.repository';

/** After the end, a translator still draining gets this long to report its last segments. */
export const READY_GRACE_SECONDS = 60;
const READINESS_INTERVAL_MS = 5_000;
const RETENTION_INTERVAL_MS = 60 * 60_000;
const RETENTION_BATCH = 5_000;
const RETENTION_BATCHES_PER_RUN = 200;

/**
 * Closes ended rooms' transcripts and sends `transcript.ready` once per room that has a segment:
 * when the translator has left, or 60 s after the end, whichever comes first. The decision (closing
 * the transcript) and the event's outbox rows are one transaction, so the event is sent exactly
 * once, even when the process dies between the decision and the delivery. Also deletes segments
 * past their organization's retention, every hour, in bounded batches. Both are periodic jobs
 * (`transcripts.readiness`, `transcripts.retention`): one run per period for the whole deployment.
 */
@Injectable()
export class TranscriptReadinessService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly transcripts: TranscriptsRepository,
    private readonly rooms: RoomsRepository,
    private readonly events: CustomerEventsPublisher,
    periodic: PeriodicJobsScheduler,
  ) {
    periodic.register({ name: 'transcripts.readiness', everyMs: READINESS_INTERVAL_MS, run: () => this.closeDue() });
    periodic.register({ name: 'transcripts.retention', everyMs: RETENTION_INTERVAL_MS, run: () => this.deleteExpired() });
  }

  /** Closes every transcript that is due; returns how many `transcript.ready` events were decided. */
  async closeDue(): Promise<number> {
    let sent = 0;
    for (const roomId of await this.transcripts.dueToClose(READY_GRACE_SECONDS, 200)) {
      if (await this.close(roomId)) sent += 1;
    }
    return sent;
  }

  /** Closes one room's transcript; true when this call decided its `transcript.ready`. */
  async close(roomId: string): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      const room = await this.rooms.closeTranscript(roomId, tx);
      if (!room) return false;
      const { segments, languages } = await this.transcripts.summary(roomId, tx);
      if (segments === 0) return false;
      await this.events.emit(tx, {
        organizationId: room.organizationId,
        type: 'transcript.ready',
        roomId,
        data: { room_id: roomId, room: room.name, segments, languages, started_at: room.startedAt, ended_at: room.endedAt },
      });
      return true;
    });
  }

  /** Deletes expired segments in bounded batches; returns how many. */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < RETENTION_BATCHES_PER_RUN; batch++) {
      const n = await this.database.oneStatement((tx) => this.transcripts.deleteExpired(RETENTION_BATCH, tx));
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
    return deleted;
  }
}
