import type { Role } from '@app/domain';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { Requires, RequiresUnlessSelf } from '../../common/auth/requires.decorator';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { ChangeRoleDto, MemberView, UserIdParams } from './member.dto';
import { MembersService } from './members.service';

@ApiTags('members')
@ApiBearerAuth()
@Controller('v1/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @Requires('members:read')
  @ApiOperation({
    operationId: 'listMembers',
    summary: 'List members',
    description: "One page of the organization's members, oldest first.",
  })
  @ApiPageResponse(MemberView, 'Members, oldest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: PageQueryDto) {
    return this.members.list(actor, query);
  }

  @Patch(':user_id')
  @Requires('members:write')
  @ApiOperation({
    operationId: 'changeMemberRole',
    summary: "Change a member's role",
    description:
      "Only an owner makes or unmakes an owner (403); the last owner stays one (409). The member's sessions and keys follow the new role from their next request.",
  })
  @ApiOkResponse({ type: MemberView, description: 'The member with the new role' })
  @ApiErrors(422, 401, 404, 409)
  changeRole(@CurrentActor() actor: Actor, @Param() params: UserIdParams, @Body() body: ChangeRoleDto) {
    return this.members.changeRole(actor, params.user_id, body.role as Role);
  }

  @Delete(':user_id')
  @RequiresUnlessSelf('members:write', 'user_id')
  @ApiOperation({
    operationId: 'removeMember',
    summary: 'Remove a member',
    description:
      'The member leaves the organization: their API keys in it are revoked at once and their sessions get 404 for it. A member may remove themselves; only an owner removes an owner; the last owner stays (409).',
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(422, 401, 404, 409)
  async remove(@CurrentActor() actor: Actor, @Param() params: UserIdParams) {
    await this.members.remove(actor, params.user_id);
  }
}
