import { Controller, Get, Param } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { RoomIdParams } from '../rooms/room.dto';
import { TranslationStatsView } from './translation-stats.dto';
import { TranslationStatsService } from './translation-stats.service';

@ApiTags('rooms')
@ApiBearerAuth()
@Controller('v1/rooms')
export class TranslationStatsController {
  constructor(private readonly stats: TranslationStatsService) {}

  @Get(':room_id/translation-stats')
  @Requires('rooms:read')
  @ApiOperation({
    operationId: 'getTranslationStats',
    summary: 'Translator presence and per-direction latency (end of speech → first translated audio) of a room',
    description:
      'Whether the translator is in the room, its sessions, and per direction (e.g. `en>de`) the latency samples, p50, p95 and seconds of ' +
      'translated audio, as reported by the agent. 404 for a room of another organization.',
  })
  @ApiOkResponse({ type: TranslationStatsView })
  @ApiErrors(422, 401, 404)
  get(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    return this.stats.forRoom(actor, params.room_id);
  }
}
