import { Controller, Get } from '@nestjs/common';
import { AnyMember } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { UserView } from './user.dto';
import { MembershipView } from '../members/member.dto';
import { MembersService } from '../members/members.service';

@ApiTags('users')
@ApiBearerAuth()
@Controller('v1/users')
export class UsersController {
  constructor(private readonly members: MembersService) {}

  /** The actor was loaded with the credential in one query, so this needs no second one. */
  @Get('me')
  @AnyMember()
  @ApiOperation({
    operationId: 'getCurrentUser',
    summary: 'The current user',
    description: 'The authenticated user; an API key acts for the user who created it.',
  })
  @ApiOkResponse({ type: UserView, description: 'The authenticated user (an API key acts for the user who created it)' })
  @ApiErrors(401)
  me(@CurrentActor() actor: Actor): UserView {
    return {
      id: actor.userId,
      email: actor.email,
      first_name: actor.firstName,
      last_name: actor.lastName,
      image_url: actor.imageUrl,
      created_at: actor.userCreatedAt,
    };
  }

  @Get('me/organizations')
  @AnyMember()
  @ApiOperation({
    operationId: 'listMyOrganizations',
    summary: "The current user's organizations",
    description:
      'Every organization the user belongs to, with the role there, oldest membership first. A session acts in the one Organization-Id names, or the first of these.',
  })
  @ApiOkResponse({ type: [MembershipView], description: "The user's organizations, oldest first" })
  @ApiErrors(401)
  organizations(@CurrentActor() actor: Actor) {
    return this.members.organizationsOf(actor);
  }
}
