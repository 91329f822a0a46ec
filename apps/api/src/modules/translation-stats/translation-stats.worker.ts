import { QUEUES, type TranslatorEventJob } from '@app/contracts';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { QueueRegistry } from '../../queue/queue-registry';
import { TranslationStatsService } from './translation-stats.service';

/** The handler of the translator-events queue: stores each agent report once, by its job id. */
@Injectable()
export class TranslationStatsWorker implements OnModuleInit {
  private readonly logger = new Logger(TranslationStatsWorker.name);

  constructor(
    private readonly queues: QueueRegistry,
    private readonly stats: TranslationStatsService,
  ) {}

  onModuleInit(): void {
    this.queues.process<TranslatorEventJob>(QUEUES.translatorEvents, async (job) => {
      const stored = await this.stats.record(job.id ?? `${job.name}:${job.timestamp}`, job.data);
      if (!stored) this.logger.debug(`translator event ${job.id ?? '?'} for room ${job.data.roomId} was a duplicate or names no room`);
    });
  }
}
