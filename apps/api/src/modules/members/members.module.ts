import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { MemberInvitationsController } from './member-invitations.controller';
import { MemberInvitationsRepository } from './member-invitations.repository';
import { MemberInvitationsService } from './member-invitations.service';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';

/** Teams: an organization's members, their roles, and invitations to join. */
@Module({
  imports: [OrganizationsModule],
  controllers: [MembersController, MemberInvitationsController],
  providers: [MembersService, MemberInvitationsService, MemberInvitationsRepository],
  exports: [MembersService],
})
export class MembersModule {}
