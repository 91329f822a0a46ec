import { Module } from '@nestjs/common';
import { OrganizationVersionsRepository } from '../../common/caching/organization-versions.repository';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

@Module({ controllers: [UsageController], providers: [UsageService, UsageRepository, OrganizationVersionsRepository] })
export class UsageModule {}
