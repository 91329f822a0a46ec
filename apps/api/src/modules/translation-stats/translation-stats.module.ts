import { Module } from '@nestjs/common';
import { TranslationStatsController } from './translation-stats.controller';
import { TranslationStatsRepository } from './translation-stats.repository';
import { TranslationStatsService } from './translation-stats.service';
import { TranslationStatsWorker } from './translation-stats.worker';

@Module({
  controllers: [TranslationStatsController],
  providers: [TranslationStatsService, TranslationStatsRepository, TranslationStatsWorker],
})
export class TranslationStatsModule {}
