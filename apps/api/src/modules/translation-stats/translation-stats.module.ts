import { Module } from '@nestjs/common';
import { TranscriptsModule } from '../transcripts/transcripts.module';
import { TranslationStatsController } from './translation-stats.controller';
import { TranslationStatsRepository } from './translation-stats.repository';
import { TranslationStatsService } from './translation-stats.service';
import { TranslationStatsWorker } from './translation-stats.worker';

@Module({
  imports: [TranscriptsModule],
  controllers: [TranslationStatsController],
  providers: [TranslationStatsService, TranslationStatsRepository, TranslationStatsWorker],
})
export class TranslationStatsModule {}
