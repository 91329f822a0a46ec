import { Module } from '@nestjs/common';
import { CachingModule } from '../../common/caching/caching.module';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

@Module({ imports: [CachingModule], controllers: [UsageController], providers: [UsageService, UsageRepository] })
export class UsageModule {}
