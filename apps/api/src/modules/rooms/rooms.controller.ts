import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { JoinTokenDto, JoinTokenView, RoomNameParams } from './join-token.dto';
import { JoinTokensService } from './join-tokens.service';
import { CreatedRoomView, CreateRoomDto, RoomDetailView, RoomIdParams, RoomListQueryDto, RoomView } from './room.dto';
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
  @Requires('rooms:write')
  @Idempotent()
  @ApiOperation({
    operationId: 'createRoom',
    summary: 'Create a room',
    description:
      'Creates a live translation room and its LiveKit room. Nothing in the body is required: without `room_name` a unique name is generated; without `streaming_mode` the first join token decides the mode (two languages: `mono`, one: `dual`), which is then fixed. No credentials are issued here: every participant, the first included, gets a join token from `POST /v1/rooms/{room_name}/token`. 402 while the balance is at or below zero; 409 when `room_name` is the name of a live room; 503 when LiveKit cannot be reached (nothing is created). Any API key or session of the organization may call it.',
  })
  @ApiBody({ type: CreateRoomDto, required: false, description: 'Optional: an absent or empty body creates a room with a generated name' })
  @ApiCreatedResponse({ type: CreatedRoomView })
  @ApiErrors(422, 401, 402, 409, 503)
  create(@CurrentActor() actor: Actor, @Body() body: CreateRoomDto) {
    return this.rooms.create(actor, body);
  }

  @Get()
  @Requires('rooms:read')
  @ApiOperation({
    operationId: 'listRooms',
    summary: 'List rooms',
    description:
      "One page of the organization's rooms, newest first, including teammates' rooms; `status` keeps the live (`active`) or ended ones.",
  })
  @ApiPageResponse(RoomView, 'Rooms of the organization, newest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: RoomListQueryDto) {
    return this.rooms.list(actor, query);
  }

  @Get(':room_id')
  @Requires('rooms:read')
  @ApiOperation({
    operationId: 'getRoom',
    summary: 'Get a room with per-participant usage',
    description:
      'The room with one entry per connection: who, which languages, when, minutes and cost (billed per started minute). 404 for a room of another organization, exactly as for a missing one.',
  })
  @ApiOkResponse({ type: RoomDetailView })
  @ApiErrors(422, 401, 404)
  detail(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    return this.rooms.detail(actor, params.room_id);
  }

  @Delete(':room_id')
  @Requires('rooms:write')
  @ApiOperation({
    operationId: 'endRoom',
    summary: 'End a room',
    description:
      'Ends the call: the LiveKit room is deleted and every open connection closed at the current time (billing stops there). Ending an ended room is 204 too. 503 when LiveKit cannot be reached (nothing changes).',
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'The call has ended (also when it had already ended)' })
  @ApiErrors(422, 401, 404, 503)
  async end(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    await this.rooms.end(actor, params.room_id);
  }

  @Post(':room_name/token')
  @Requires('rooms:write')
  @ApiOperation({
    operationId: 'createJoinToken',
    summary: 'Issue a join token for a member',
    description:
      'A LiveKit access token for one person of the organization, with the languages they speak. One language means a `dual` room (each speaker on their own device), two a `mono` room (one device for both); the first token of a room without a mode fixes it, and a later token that does not fit it is 409. A room holds at most two languages: a third one is 409. Connect a LiveKit client to `url` with `token`; the translator joins once the connected people hold two languages.',
  })
  @Idempotent()
  @ApiCreatedResponse({ type: JoinTokenView })
  @ApiErrors(422, 401, 404, 409)
  token(@CurrentActor() actor: Actor, @Param() params: RoomNameParams, @Body() body: JoinTokenDto) {
    return this.tokens.issueForMember(actor, params.room_name, body);
  }
}
