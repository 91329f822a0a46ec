import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { JoinTokenDto, JoinTokenView, RoomNameParams } from './join-token.dto';
import { JoinTokensService } from './join-tokens.service';
import { CreatedRoomView, CreateRoomDto, RoomDetailView, RoomIdParams, RoomView } from './room.dto';
import { RoomsService } from './rooms.service';
import { Idempotent } from '../idempotency/idempotent.decorator';

@ApiTags('rooms')
@ApiBearerAuth()
@Controller('v1/rooms')
export class RoomsController {
  constructor(
    private readonly rooms: RoomsService,
    private readonly tokens: JoinTokensService,
  ) {}

  @Post()
  @Idempotent()
  @ApiCreatedResponse({ type: CreatedRoomView })
  @ApiErrors(422, 401, 402, 409, 503)
  create(@CurrentActor() actor: Actor, @Body() body: CreateRoomDto) {
    return this.rooms.create(actor, body);
  }

  @Get()
  @ApiPageResponse(RoomView, 'Rooms of the organization, newest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: PageQueryDto) {
    return this.rooms.list(actor, query);
  }

  @Get(':room_id')
  @ApiOkResponse({ type: RoomDetailView })
  @ApiErrors(422, 401, 404)
  detail(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    return this.rooms.detail(actor, params.room_id);
  }

  @Delete(':room_id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'The call has ended (also when it had already ended)' })
  @ApiErrors(422, 401, 404, 503)
  async end(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    await this.rooms.end(actor, params.room_id);
  }

  @Post(':room_name/token')
  @Idempotent()
  @ApiCreatedResponse({ type: JoinTokenView })
  @ApiErrors(422, 401, 404, 409)
  token(@CurrentActor() actor: Actor, @Param() params: RoomNameParams, @Body() body: JoinTokenDto) {
    return this.tokens.issueForMember(actor, params.room_name, body);
  }
}
