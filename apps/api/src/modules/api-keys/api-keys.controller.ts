import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { newKeyRequest, ApiKeyIdParams, ApiKeyView, CreateApiKeyDto, CreatedApiKeyView } from './api-key.dto';
import { ApiKeysService } from './api-keys.service';
import { Idempotent } from '../idempotency/idempotent.decorator';

@ApiTags('api-keys')
@ApiBearerAuth()
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @Requires('keys:write')
  @Idempotent()
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'A new key for the organization. Its secret (`key`, `trk_` and 40 characters) is shown in this answer only: a lost key must be replaced.',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyView, description: 'The key, with its secret shown this once' })
  @ApiErrors(422, 401, 409)
  create(@CurrentActor() actor: Actor, @Body() body: CreateApiKeyDto) {
    return this.apiKeys.create(actor, newKeyRequest(body));
  }

  @Get()
  @Requires('keys:read')
  @ApiOperation({
    operationId: 'listApiKeys',
    summary: 'List API keys',
    description:
      "One page of the organization's keys, newest first, teammates' included; secrets are never returned, only their first and last characters.",
  })
  @ApiPageResponse(ApiKeyView, 'API keys of the organization, newest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: PageQueryDto) {
    return this.apiKeys.list(actor, query);
  }

  @Delete(':key_id')
  @Requires('keys:write')
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'The key stops authenticating at once and leaves the list. 404 for a key of another organization or already revoked.',
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked; the key stops authenticating at once' })
  @ApiErrors(422, 401, 404)
  async revoke(@CurrentActor() actor: Actor, @Param() params: ApiKeyIdParams) {
    await this.apiKeys.revoke(actor, params.key_id);
  }
}
