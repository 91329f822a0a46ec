import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { Public } from '../../common/auth/public.decorator';
import { ApiErrors } from '../../common/openapi/error-responses';
import { InviteJoinDto, JoinTokenView } from '../rooms/join-token.dto';
import { RoomIdParams } from '../rooms/room.dto';
import { InviteCodeParams, InvitePreviewView, MintedInviteView, MintInviteDto } from './invite.dto';
import { InvitesService } from './invites.service';
import { VerifiedInviteCodeGuard, VerifiedInviteHash } from './verified-invite-code.guard';
import { Idempotent } from '../idempotency/idempotent.decorator';

@ApiTags('invites')
@Controller('v1')
export class InvitesController {
  constructor(private readonly invites: InvitesService) {}

  @Post('rooms/:room_id/invites')
  @Requires('rooms:write')
  @ApiOperation({
    operationId: 'mintInvite',
    summary: 'Mint an invite link',
    description:
      "An invite code for guests without an account, bounded in time (`expires_in_seconds`, 60 s to 30 days) and in uses (`max_uses`, 1 to 100). The code appears only in this answer (only its hash is kept) and is signed; keep it in the guest URL's path, not its query. 410 for an ended room.",
  })
  @Idempotent()
  @ApiBearerAuth()
  @ApiCreatedResponse({ type: MintedInviteView })
  @ApiErrors(422, 401, 404, 410)
  mint(@CurrentActor() actor: Actor, @Param() params: RoomIdParams, @Body() body: MintInviteDto) {
    return this.invites.mint(actor, params.room_id, body);
  }

  @Delete('rooms/:room_id/invites')
  @Requires('rooms:write')
  @ApiOperation({
    operationId: 'revokeInvites',
    summary: 'Revoke every invite link of a room',
    description:
      'Removes every link of the room at once, permanently: lookups of their codes then answer 404. People already in the room stay. Always 204, also for a room without links, an ended room or a room of another organization, so retries are safe.',
  })
  @ApiBearerAuth()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Every link of the room is removed; always 204' })
  @ApiErrors(422, 401)
  async revoke(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    await this.invites.revokeAll(actor, params.room_id);
  }

  @Public()
  @UseGuards(VerifiedInviteCodeGuard)
  @Get('invites/:invite_code')
  @ApiOperation({
    operationId: 'previewInvite',
    summary: 'Preview an invite link (public)',
    description:
      "What a guest may choose, without authentication. `active_languages` is exactly the set a join accepts: every supported language while the room holds fewer than two, else only those two. Empty means the link cannot be redeemed now (`mode` and `room_status` say why). With `languages_required` 2 the guest picks a pair that includes the room's language; with null either count is accepted and fixes the mode. 404 for an unknown, malformed or revoked code; 410 for an expired or spent link or an ended room.",
  })
  @ApiOkResponse({ type: InvitePreviewView })
  @ApiErrors(422, 404, 410)
  preview(@Param() _params: InviteCodeParams, @VerifiedInviteHash() codeHash: Buffer) {
    return this.invites.preview(codeHash);
  }

  @Public()
  @UseGuards(VerifiedInviteCodeGuard)
  @Post('invites/:invite_code/join')
  @ApiOperation({
    operationId: 'joinInvite',
    summary: 'Join through an invite link (public)',
    description:
      'Spends one use of the link and returns a guest join token, under the same mode and two-language rules as member tokens (409 when the languages do not fit). No authentication: the code is the credential. 404 and 410 as for the preview.',
  })
  @ApiCreatedResponse({ type: JoinTokenView, description: 'A guest join token; one use of the link is spent' })
  @ApiErrors(422, 404, 409, 410)
  join(@Param() _params: InviteCodeParams, @VerifiedInviteHash() codeHash: Buffer, @Body() body: InviteJoinDto) {
    return this.invites.join(codeHash, body);
  }
}
