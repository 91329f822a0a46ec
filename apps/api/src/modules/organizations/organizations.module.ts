import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { MembershipsRepository } from './memberships.repository';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';

@Module({
  imports: [ApiKeysModule],
  providers: [OrganizationsService, OrganizationsRepository, MembershipsRepository],
  exports: [OrganizationsService, OrganizationsRepository, MembershipsRepository],
})
export class OrganizationsModule {}
