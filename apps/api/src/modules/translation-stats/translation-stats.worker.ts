import { QUEUES, type TranslatorEventJob } from '@app/contracts';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { QueueRegistry } from '../../queue/queue.registry';
import { TranscriptIntakeService } from '../transcripts/transcript-intake.service';
import { TranslationStatsService } from './translation-stats.service';

/**
 * Segment reports are small and arrive from every live room at once: many run together, so the
 * transcript intake stores them in few inserts (one per batch) instead of one round trip each.
 */
const TRANSLATOR_EVENTS_CONCURRENCY = 128;

/** The handler of the translator-events queue: transcript segments to the transcript, every other report stored once by its job id. */
@Injectable()
export class TranslationStatsWorker implements OnModuleInit {
  private readonly logger = new Logger(TranslationStatsWorker.name);

  constructor(
    private readonly queues: QueueRegistry,
    private readonly stats: TranslationStatsService,
    private readonly transcripts: TranscriptIntakeService,
  ) {}

  onModuleInit(): void {
    this.queues.process<TranslatorEventJob>(
      QUEUES.translatorEvents,
      async (job) => {
        if (job.data.type === 'segment') {
          // Stored once by room and segment id, whatever the job id: a restarted agent re-sends under new ids.
          await this.transcripts.record(job.data);
          return;
        }
        const stored = await this.stats.record(job.id ?? `${job.name}:${job.timestamp}`, job.data);
        if (!stored) this.logger.debug(`translator event ${job.id ?? '?'} for room ${job.data.roomId} was a duplicate or names no room`);
      },
      { concurrency: TRANSLATOR_EVENTS_CONCURRENCY },
    );
  }
}
