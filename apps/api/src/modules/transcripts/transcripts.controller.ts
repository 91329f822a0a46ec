import { TRANSCRIPT_CONTENT_TYPES } from '@app/domain/transcripts';
import { Requires } from '../../common/auth/requires.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { RoomIdParams } from '../rooms/room.dto';
import { TranscriptQueryDto, TranscriptSegmentView, TranscriptSettingsDto, TranscriptSettingsView } from './transcript.dto';
import { TranscriptsService } from './transcripts.service';

const PAGE_OF_SEGMENTS = {
  type: 'object',
  required: ['items', 'limit', 'offset', 'next_offset'],
  properties: {
    items: { type: 'array', items: { $ref: getSchemaPath(TranscriptSegmentView) } },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    next_offset: { type: 'integer', nullable: true },
  },
};

@ApiTags('transcripts')
@ApiBearerAuth()
@ApiExtraModels(TranscriptSegmentView)
@Controller('v1')
export class TranscriptsController {
  constructor(private readonly transcripts: TranscriptsService) {}

  @Get('rooms/:room_id/transcript')
  @Requires('rooms:read')
  @ApiOperation({
    operationId: 'getRoomTranscript',
    summary: "A room's transcript",
    description:
      "What was said in the room, one segment per final utterance, in spoken order (`started_at`, then `id`; the one list that is not newest first), while the room is live too. `format=json` (default): a page of segments with both texts. `format=vtt` or `srt`: the whole transcript as WebVTT or SubRip, cue times from the room's start (the first segment's when the room never started), the speaker as `<v identity>` or an `identity: ` prefix; with `language`, every cue in that language. 404 for another organization's room, exactly as for a missing one.",
  })
  @ApiOkResponse({
    description: 'A page of segments (json), or the whole transcript as WebVTT (vtt) or SubRip (srt)',
    content: {
      'application/json': { schema: PAGE_OF_SEGMENTS },
      'text/vtt': { schema: { type: 'string', example: 'WEBVTT\n\n00:00:01.200 --> 00:00:03.400\n<v alice>hello everyone\n' } },
      'application/x-subrip': { schema: { type: 'string', example: '1\n00:00:01,200 --> 00:00:03,400\nalice: hello everyone\n' } },
    },
  })
  @ApiErrors(422, 401, 404)
  async get(
    @CurrentActor() actor: Actor,
    @Param() params: RoomIdParams,
    @Query() query: TranscriptQueryDto,
    @Res({ passthrough: true }) response: Response,
  ) {
    if (query.format === 'json') return this.transcripts.page(actor, params.room_id, query);
    const text = await this.transcripts.export(actor, params.room_id, query.format, query.language);
    response.setHeader('Content-Type', TRANSCRIPT_CONTENT_TYPES[query.format]);
    return text;
  }

  @Delete('rooms/:room_id/transcript')
  @Requires('rooms:write')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'eraseRoomTranscript',
    summary: "Erase a room's transcript",
    description:
      "Erases the room's stored segments (204 again when there is nothing left). A live room's later segments are kept again, unless storing is off.",
  })
  @ApiNoContentResponse({ description: 'The transcript is erased' })
  @ApiErrors(422, 401, 404)
  async erase(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    await this.transcripts.erase(actor, params.room_id);
  }

  @Get('transcripts/settings')
  @Requires('rooms:read')
  @ApiOperation({
    operationId: 'getTranscriptSettings',
    summary: 'Transcript settings',
    description: 'Whether new segments are stored, and for how many days. Defaults: stored, 30 days.',
  })
  @ApiOkResponse({ type: TranscriptSettingsView })
  @ApiErrors(401)
  settings(@CurrentActor() actor: Actor) {
    return this.transcripts.settings(actor);
  }

  @Put('transcripts/settings')
  @Requires('rooms:write')
  @ApiOperation({
    operationId: 'setTranscriptSettings',
    summary: 'Change transcript settings',
    description:
      'Both fields are required. `store: false` stops storing new segments of the organization (captions still flow live); segments older than `retention_days` are deleted within an hour of expiring.',
  })
  @ApiOkResponse({ type: TranscriptSettingsView })
  @ApiErrors(422, 401)
  saveSettings(@CurrentActor() actor: Actor, @Body() body: TranscriptSettingsDto) {
    return this.transcripts.saveSettings(actor, body);
  }
}
