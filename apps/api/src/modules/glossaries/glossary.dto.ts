import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { BoolRule, EnumRule, StringRule, UuidRule } from '../../common/validation/rules';
import { ENTRIES_PER_GLOSSARY, readGlossaryEntries, ROOM_GLOSSARIES_MAX } from './glossary-entry-input';

export const GLOSSARY_NAME_MAX_LENGTH = 120;
export const GLOSSARY_TEXT_FORMATS = ['csv', 'tsv'] as const;

const TERMS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string', minLength: 1, maxLength: 200 },
  minProperties: 1,
  maxProperties: 10,
  example: { en: 'Tenmeter', es: 'Tenmeter' },
  description:
    'language code (of GET /v1/supported-languages) → the term in that language; 1–10 of them, each 1–200 characters after trimming',
} as const;

const SOUNDS_LIKE_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 10 },
  example: { en: ['ten meter', 'ten metre'] },
  description: 'per language of `terms`, 0–10 phrases that recognition may hear instead of the term',
} as const;

/** One entry as sent (validated by the domain's validateGlossaryEntry, not by decorators). */
export class GlossaryEntryInput {
  @ApiProperty(TERMS_SCHEMA) terms!: Record<string, string>;
  @ApiPropertyOptional({ default: false, description: 'kept as written in every language; exactly one term' })
  do_not_translate?: boolean;
  @ApiPropertyOptional({ default: false, description: 'the term matches only with the same case' }) case_sensitive?: boolean;
  @ApiPropertyOptional({ ...SOUNDS_LIKE_SCHEMA, default: {} }) sounds_like?: Record<string, string[]>;
}

export class GlossaryEntryView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty(TERMS_SCHEMA) terms!: Record<string, string>;
  @ApiProperty() do_not_translate!: boolean;
  @ApiProperty() case_sensitive!: boolean;
  @ApiProperty(SOUNDS_LIKE_SCHEMA) sounds_like!: Record<string, string[]>;
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
}

export class CreateGlossaryDto {
  /** A body may carry a glossary's worth of entries (the pipe's member bound is otherwise 64). */
  static readonly maxInputMembers = ENTRIES_PER_GLOSSARY + 1;

  @ApiProperty({ minLength: 1, maxLength: GLOSSARY_NAME_MAX_LENGTH, example: 'Product names' })
  @StringRule({ minLength: 1, maxLength: GLOSSARY_NAME_MAX_LENGTH })
  name!: string;

  @ApiPropertyOptional({ default: false, description: 'used by every room of the organization that has no list of its own' })
  @BoolRule({ optional: true })
  default?: boolean;

  @ApiPropertyOptional({ type: [GlossaryEntryInput], maxItems: ENTRIES_PER_GLOSSARY, description: 'its first entries (in this order)' })
  @IsOptional()
  entries?: unknown;

  static moreIssues(instance: CreateGlossaryDto) {
    if (instance.entries === undefined) return [];
    const result = readGlossaryEntries(instance.entries);
    return result.ok
      ? []
      : result.error.map((issue) => ({ ...issue, loc: ['entries', ...issue.loc], ctx: issue.ctx ? { ...issue.ctx } : {} }));
  }
}

export class UpdateGlossaryDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: GLOSSARY_NAME_MAX_LENGTH, example: 'Product names' })
  @StringRule({ minLength: 1, maxLength: GLOSSARY_NAME_MAX_LENGTH, optional: true })
  name?: string;

  @ApiPropertyOptional({ description: 'used by every room of the organization that has no list of its own' })
  @BoolRule({ optional: true })
  default?: boolean;
}

export class GlossaryIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  id!: string;
}

export class GlossaryEntryIdParams extends GlossaryIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  entry_id!: string;
}

export class GlossaryEntriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: GLOSSARY_TEXT_FORMATS,
    description: 'every entry at once as `text/csv` or `text/tab-separated-values` (limit and offset do not apply)',
  })
  @EnumRule(GLOSSARY_TEXT_FORMATS, { optional: true })
  format?: (typeof GLOSSARY_TEXT_FORMATS)[number];
}

export class GlossaryView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'Product names' }) name!: string;
  @ApiProperty({ description: 'used by every room of the organization that has no list of its own' }) default!: boolean;
  @ApiProperty({ type: 'integer', example: 42 }) entry_count!: number;
  @ApiProperty({ type: [String], example: ['en', 'es'], description: 'the language codes its entries use, sorted' })
  languages!: string[];
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
  @ApiProperty({ format: 'date-time' }) updated_at!: Date;
}

export class EntryCountView {
  @ApiProperty({ type: 'integer', example: 42 }) entry_count!: number;
}

export class RoomGlossariesDto {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    maxItems: ROOM_GLOSSARIES_MAX,
    description: "the room's glossaries in priority order (0–5); an empty list means none",
  })
  @IsOptional()
  glossary_ids!: unknown;

  static moreIssues(instance: RoomGlossariesDto) {
    const ids = instance.glossary_ids;
    if (ids === undefined) return [{ loc: ['glossary_ids'], msg: 'Field required', type: 'missing', input: instance }];
    if (!Array.isArray(ids)) return [{ loc: ['glossary_ids'], msg: 'Input should be a valid list', type: 'list_type', input: ids }];
    if (ids.length > ROOM_GLOSSARIES_MAX) {
      return [
        {
          loc: ['glossary_ids'],
          msg: `List should have at most ${ROOM_GLOSSARIES_MAX} items after validation, not ${ids.length}`,
          type: 'too_long',
          input: ids,
          ctx: { field_type: 'List', max_length: ROOM_GLOSSARIES_MAX, actual_length: ids.length },
        },
      ];
    }
    const seen = new Set<string>();
    return ids.flatMap((id: unknown, i) => {
      if (typeof id !== 'string' || !UUID.test(id)) {
        return [{ loc: ['glossary_ids', i], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: id }];
      }
      const key = id.toLowerCase();
      if (seen.has(key)) {
        const error = 'a glossary appears once in the list';
        return [{ loc: ['glossary_ids', i], msg: `Value error, ${error}.`, type: 'value_error', input: id, ctx: { error } }];
      }
      seen.add(key);
      return [];
    });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class RoomGlossariesView {
  @ApiProperty({ type: [String], format: 'uuid', description: 'the glossaries the room uses now, in priority order' })
  glossary_ids!: string[];
}
