import { Module } from '@nestjs/common';
import { TranslationStatsController } from './translation-stats.controller';
import { TranslationStatsService } from './translation-stats.service';
import { TranslationStatsWorker } from './translation-stats.worker';

@Module({ controllers: [TranslationStatsController], providers: [TranslationStatsService, TranslationStatsWorker] })
export class TranslationStatsModule {}
