import { Module } from '@nestjs/common';
import { TranscriptsModule } from '../transcripts/transcripts.module';
import { TranslationStatsController } from './translation-stats.controller';
import { TranslationStatsService } from './translation-stats.service';
import { TranslationStatsWorker } from './translation-stats.worker';

@Module({
  imports: [TranscriptsModule],
  controllers: [TranslationStatsController],
  providers: [TranslationStatsService, TranslationStatsWorker],
})
export class TranslationStatsModule {}
