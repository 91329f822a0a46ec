import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { Public } from '../../common/auth/public.decorator';
import { ApiErrors } from '../../common/openapi/error-responses';
import { InviteJoinDto, JoinTokenView } from '../rooms/join-token.dto';
import { RoomIdParams } from '../rooms/room.dto';
import { InviteCodeParams, InvitePreviewView, MintedInviteView, MintInviteDto } from './invite.dto';
import { InvitesService } from './invites.service';
import { VerifiedInviteCode } from './verified-invite-code.guard';
import { Idempotent } from '../idempotency/idempotent.decorator';

@ApiTags('invites')
@Controller('v1')
export class InvitesController {
  constructor(private readonly invites: InvitesService) {}

  @Post('rooms/:room_id/invites')
  @Idempotent()
  @ApiBearerAuth()
  @ApiCreatedResponse({ type: MintedInviteView })
  @ApiErrors(422, 401, 404, 410)
  mint(@CurrentActor() actor: Actor, @Param() params: RoomIdParams, @Body() body: MintInviteDto) {
    return this.invites.mint(actor, params.room_id, body);
  }

  @Delete('rooms/:room_id/invites')
  @ApiBearerAuth()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Every link of the room is removed; always 204' })
  @ApiErrors(422, 401)
  async revoke(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    await this.invites.revokeAll(actor, params.room_id);
  }

  @Public()
  @UseGuards(VerifiedInviteCode)
  @Get('invites/:invite_code')
  @ApiOkResponse({ type: InvitePreviewView })
  @ApiErrors(422, 404, 410)
  preview(@Param() params: InviteCodeParams) {
    return this.invites.preview(params.invite_code);
  }

  @Public()
  @UseGuards(VerifiedInviteCode)
  @Post('invites/:invite_code/join')
  @ApiCreatedResponse({ type: JoinTokenView, description: 'A guest join token; one use of the link is spent' })
  @ApiErrors(422, 404, 409, 410)
  join(@Param() params: InviteCodeParams, @Body() body: InviteJoinDto) {
    return this.invites.join(params.invite_code, body);
  }
}
