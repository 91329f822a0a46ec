import type { Role } from '@app/domain';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { AnyMember, Requires } from '../../common/auth/requires.decorator';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';
import {
  AcceptInvitationDto,
  CreatedInvitationView,
  CreateInvitationDto,
  InvitationIdParams,
  InvitationView,
  MembershipView,
} from './member.dto';
import { MemberInvitationsService } from './member-invitations.service';

@ApiTags('members')
@ApiBearerAuth()
@Controller('v1/member-invitations')
export class MemberInvitationsController {
  constructor(private readonly invitations: MemberInvitationsService) {}

  @Post()
  @Requires('members:write')
  @Idempotent()
  @ApiOperation({
    operationId: 'inviteMember',
    summary: 'Invite someone to the organization',
    description:
      'An invitation for one email address and role (not above your own: 403), valid 7 days, accepted once. Its token is shown only here.',
  })
  @ApiCreatedResponse({ type: CreatedInvitationView, description: 'The invitation, with its token shown this once' })
  @ApiErrors(422, 401)
  create(@CurrentActor() actor: Actor, @Body() body: CreateInvitationDto) {
    return this.invitations.create(actor, body.email, body.role as Role);
  }

  @Get()
  @Requires('members:read')
  @ApiOperation({
    operationId: 'listInvitations',
    summary: 'List pending invitations',
    description: 'One page of pending invitations, oldest first; never their tokens.',
  })
  @ApiPageResponse(InvitationView, 'Pending invitations, oldest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: PageQueryDto) {
    return this.invitations.list(actor, query);
  }

  @Delete(':id')
  @Requires('members:write')
  @ApiOperation({
    operationId: 'revokeInvitation',
    summary: 'Revoke an invitation',
    description: 'A pending invitation can no longer be accepted (410).',
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(422, 401, 404)
  async revoke(@CurrentActor() actor: Actor, @Param() params: InvitationIdParams) {
    await this.invitations.revoke(actor, params.id);
  }

  @Post('accept')
  @AnyMember()
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation',
    description:
      "With a session whose verified email is the invited one (another email or an API key: 403): you join the organization with the invitation's role. Expired, used or revoked: 410.",
  })
  @ApiOkResponse({ type: MembershipView, description: 'The organization you joined, with your role there' })
  @ApiErrors(422, 401, 404, 410)
  accept(@CurrentActor() actor: Actor, @Body() body: AcceptInvitationDto) {
    return this.invitations.accept(actor, body.invitation_token);
  }
}
