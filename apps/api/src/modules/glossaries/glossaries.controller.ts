import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import {
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { RequestValidationError } from '../../common/errors/validation-error';
import { ApiErrors, ErrorBody } from '../../common/openapi/error-responses';
import { shapeIssue } from '../../common/validation/input-validation.pipe';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { RoomIdParams } from '../rooms/room.dto';
import { GlossariesService, type EntriesBody } from './glossaries.service';
import { ENTRIES_PER_GLOSSARY } from './glossary-entry-input';
import {
  CreateGlossaryDto,
  EntryCountView,
  GlossaryEntriesQueryDto,
  GlossaryEntryIdParams,
  GlossaryEntryInput,
  GlossaryEntryView,
  GlossaryIdParams,
  GlossaryView,
  RoomGlossariesDto,
  RoomGlossariesView,
  UpdateGlossaryDto,
} from './glossary.dto';

/** The media types of a glossary as text, by format. */
export const GLOSSARY_TEXT_TYPES = { csv: 'text/csv', tsv: 'text/tab-separated-values' } as const;

const CSV_EXAMPLE = 'en,es,do_not_translate\r\nforward,adelante,false\r\nAcme,,true\r\n';
const TSV_EXAMPLE = 'en\tes\r\nforward\tadelante\r\n';
const TEXT_DESCRIPTION =
  'UTF-8, at most 1 MiB: a header row of language codes, optionally the column `do_not_translate` (`true`/`false`), one entry per ' +
  'row, empty cells skipped. Fields are quoted as in RFC 4180 (for TSV too) when they hold the delimiter, a quote or a line break. ' +
  "A term a spreadsheet would run as a formula (beginning with `=`, `+`, `-`, `@`, a tab or a carriage return, or with `'` and then " +
  "one of them) is exported quoted, behind one `'`; an import takes that one `'` off such a cell (`'=x` is the term `=x`).";

const PAGE_OF_ENTRIES = {
  type: 'object',
  required: ['items', 'limit', 'offset', 'next_offset'],
  properties: {
    items: { type: 'array', items: { $ref: getSchemaPath(GlossaryEntryView) } },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    next_offset: { type: 'integer', nullable: true },
  },
};

const mediaTypeOf = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase();

@ApiTags('glossaries')
@ApiBearerAuth()
@ApiExtraModels(GlossaryEntryView, GlossaryEntryInput)
@Controller('v1')
export class GlossariesController {
  constructor(private readonly glossaries: GlossariesService) {}

  @Post('glossaries')
  @Requires('glossaries:write')
  @Idempotent()
  @ApiOperation({
    operationId: 'createGlossary',
    summary: 'Create a glossary',
    description:
      'A glossary is a list of entries, each one term in several languages. `default: true`: used by every room of the organization ' +
      'without a list of its own. At most 100 glossaries per organization and 10,000 entries per glossary (422); one glossary may ' +
      'not hold the same term twice in one language (422).',
  })
  @ApiCreatedResponse({ type: GlossaryView, description: 'The glossary' })
  @ApiErrors(422, 401)
  create(@CurrentActor() actor: Actor, @Body() body: CreateGlossaryDto) {
    return this.glossaries.create(actor, body);
  }

  @Get('glossaries')
  @Requires('glossaries:read')
  @ApiOperation({ operationId: 'listGlossaries', summary: 'List glossaries', description: "The organization's glossaries, newest first." })
  @ApiPageResponse(GlossaryView, 'Glossaries of the organization, newest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: PageQueryDto) {
    return this.glossaries.list(actor, query);
  }

  @Get('glossaries/:id')
  @Requires('glossaries:read')
  @ApiOperation({
    operationId: 'getGlossary',
    summary: 'A glossary',
    description: "Its name, whether it is a default, how many entries it holds and the languages they use. 404 for another organization's.",
  })
  @ApiOkResponse({ type: GlossaryView })
  @ApiErrors(422, 401, 404)
  get(@CurrentActor() actor: Actor, @Param() params: GlossaryIdParams) {
    return this.glossaries.get(actor, params.id);
  }

  @Patch('glossaries/:id')
  @Requires('glossaries:write')
  @ApiOperation({
    operationId: 'updateGlossary',
    summary: 'Rename a glossary or change whether it is a default',
    description: 'Either field may be left out. A changed `default` reaches the live rooms without a list of their own within 10 s.',
  })
  @ApiOkResponse({ type: GlossaryView })
  @ApiErrors(422, 401, 404)
  update(@CurrentActor() actor: Actor, @Param() params: GlossaryIdParams, @Body() body: UpdateGlossaryDto) {
    return this.glossaries.update(actor, params.id, body);
  }

  @Delete('glossaries/:id')
  @Requires('glossaries:write')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteGlossary',
    summary: 'Delete a glossary',
    description: 'Its entries go with it, and it leaves every room that used it.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(422, 401, 404)
  async delete(@CurrentActor() actor: Actor, @Param() params: GlossaryIdParams) {
    await this.glossaries.delete(actor, params.id);
  }

  @Get('glossaries/:id/entries')
  @Requires('glossaries:read')
  @ApiOperation({
    operationId: 'listGlossaryEntries',
    summary: "A glossary's entries",
    description:
      'A page of entries, oldest first. With `format=csv` or `format=tsv`: every entry at once as text, in the form ' +
      '`PUT /v1/glossaries/{id}/entries` takes (`case_sensitive` and `sounds_like` have no column).',
  })
  @ApiOkResponse({
    description: 'A page of entries, oldest first; or every entry as CSV or TSV',
    content: {
      'application/json': { schema: PAGE_OF_ENTRIES },
      [GLOSSARY_TEXT_TYPES.csv]: { schema: { type: 'string', description: TEXT_DESCRIPTION, example: CSV_EXAMPLE } },
      [GLOSSARY_TEXT_TYPES.tsv]: { schema: { type: 'string', description: TEXT_DESCRIPTION, example: TSV_EXAMPLE } },
    },
  })
  @ApiErrors(422, 401, 404)
  async entries(
    @CurrentActor() actor: Actor,
    @Param() params: GlossaryIdParams,
    @Query() query: GlossaryEntriesQueryDto,
    @Res({ passthrough: true }) response: Response,
  ) {
    if (query.format === undefined) return this.glossaries.entries(actor, params.id, query);
    const text = await this.glossaries.export(actor, params.id, query.format);
    response.setHeader('Content-Type', `${GLOSSARY_TEXT_TYPES[query.format]}; charset=utf-8`);
    return text;
  }

  @Post('glossaries/:id/entries')
  @Requires('glossaries:write')
  @Idempotent()
  @ApiOperation({
    operationId: 'addGlossaryEntry',
    summary: 'Add an entry to a glossary',
    description:
      'One term in 1–10 languages. 422 when a term is already in the glossary in that language (as matching compares terms) or the ' +
      'glossary holds 10,000 entries.',
  })
  @ApiBody({ type: GlossaryEntryInput })
  @ApiCreatedResponse({ type: GlossaryEntryView, description: 'The entry' })
  @ApiErrors(422, 401, 404)
  addEntry(@CurrentActor() actor: Actor, @Param() params: GlossaryIdParams, @Body() body: unknown) {
    return this.glossaries.addEntry(actor, params.id, bounded(body));
  }

  @Delete('glossaries/:id/entries/:entry_id')
  @Requires('glossaries:write')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteGlossaryEntry',
    summary: 'Delete an entry of a glossary',
    description: 'The live rooms that use the glossary stop applying it within 10 s.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(422, 401, 404)
  async deleteEntry(@CurrentActor() actor: Actor, @Param() params: GlossaryEntryIdParams) {
    await this.glossaries.deleteEntry(actor, params.id, params.entry_id);
  }

  @Put('glossaries/:id/entries')
  @Requires('glossaries:write')
  @ApiOperation({
    operationId: 'replaceGlossaryEntries',
    summary: "Replace a glossary's entries",
    description:
      'Every entry at once, from a JSON array of entries or from CSV/TSV text. A bad entry or row answers 422 (for text at ' +
      '`["body", <line>]`, 1-based, the header being line 1) and replaces nothing.',
    // Three media types with a schema each, which @ApiBody cannot say.
    requestBody: {
      required: true,
      description: 'The new entries (at most 10,000)',
      content: {
        'application/json': { schema: { type: 'array', maxItems: 10_000, items: { $ref: getSchemaPath(GlossaryEntryInput) } } },
        [GLOSSARY_TEXT_TYPES.csv]: { schema: { type: 'string', description: TEXT_DESCRIPTION, example: CSV_EXAMPLE } },
        [GLOSSARY_TEXT_TYPES.tsv]: { schema: { type: 'string', description: TEXT_DESCRIPTION, example: TSV_EXAMPLE } },
      },
    },
  })
  @ApiOkResponse({ type: EntryCountView, description: 'How many entries the glossary holds now' })
  @ApiResponse({ status: 415, type: ErrorBody, description: 'A body that is not application/json, text/csv or text/tab-separated-values' })
  @ApiErrors(422, 401, 404)
  replaceEntries(
    @CurrentActor() actor: Actor,
    @Param() params: GlossaryIdParams,
    @Headers('content-type') contentType: string | undefined,
    @Body() body: unknown,
  ) {
    return this.glossaries.replaceEntries(actor, params.id, entriesBody(contentType, body));
  }

  @Get('rooms/:room_id/glossaries')
  @Requires('rooms:read')
  @ApiOperation({
    operationId: 'getRoomGlossaries',
    summary: 'The glossaries a room uses',
    description:
      "The ids in use now, in priority order: the room's own list once set (an empty list means none), else the organization's " +
      'glossaries with `default: true`, newest first.',
  })
  @ApiOkResponse({ type: RoomGlossariesView })
  @ApiErrors(422, 401, 404)
  roomGlossaries(@CurrentActor() actor: Actor, @Param() params: RoomIdParams) {
    return this.glossaries.roomGlossaries(actor, params.room_id);
  }

  @Put('rooms/:room_id/glossaries')
  @Requires('rooms:write')
  @ApiOperation({
    operationId: 'setRoomGlossaries',
    summary: 'Choose the glossaries a room uses',
    description:
      "0–5 of the organization's glossaries, in priority order (an earlier one wins an overlap of equal length); an empty list means " +
      'none. A live room applies the change within 10 s. An id that is not one of your glossaries: 422 at its index.',
  })
  @ApiOkResponse({ type: RoomGlossariesView })
  @ApiErrors(422, 401, 404)
  setRoomGlossaries(@CurrentActor() actor: Actor, @Param() params: RoomIdParams, @Body() body: RoomGlossariesDto) {
    return this.glossaries.setRoomGlossaries(actor, params.room_id, body.glossary_ids as string[]);
  }
}

/** The body of a PUT of entries by its media type: JSON, CSV or TSV; anything else is 415. */
function entriesBody(contentType: string | undefined, body: unknown): EntriesBody {
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === 'application/json' || (mediaType === '' && body === undefined)) return { kind: 'json', value: bounded(body) };
  const kind = mediaType === GLOSSARY_TEXT_TYPES.csv ? 'csv' : mediaType === GLOSSARY_TEXT_TYPES.tsv ? 'tsv' : undefined;
  if (kind === undefined) throw new ApiError(415, 'Send the entries as application/json, text/csv or text/tab-separated-values.');
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ApiError(415, `Send the ${kind.toUpperCase()} encoded as UTF-8 (charset=utf-8), not ${charset}.`);
  }
  // The bytes as received (the body reader keeps them): the service decodes them strictly as UTF-8.
  return { kind, bytes: Buffer.isBuffer(body) ? body : Buffer.alloc(0) };
}

/** The `charset` parameter of a Content-Type, lower-case and unquoted; undefined when there is none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match ? match[1].toLowerCase() : undefined;
}

/**
 * A JSON body taken as a plain value, held to the bounds the validation pipe sets for DTOs (nesting,
 * members; a list may hold a glossary's worth of entries), before anything walks or echoes it.
 */
function bounded(body: unknown): unknown {
  const issue = shapeIssue(body, 'body', ENTRIES_PER_GLOSSARY + 1);
  if (issue) throw new RequestValidationError([issue], true);
  return body;
}
