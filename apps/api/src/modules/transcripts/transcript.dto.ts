import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { BoolRule, EnumRule, IntRule, StringRule } from '../../common/validation/rules';

export const TRANSCRIPT_FORMATS = ['json', 'vtt', 'srt'] as const;
export type TranscriptFormatName = (typeof TRANSCRIPT_FORMATS)[number];

export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3650;

export class TranscriptQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: TRANSCRIPT_FORMATS,
    enumName: 'TranscriptFormat',
    default: 'json',
    description: '`json`: a page of segments; `vtt` (WebVTT) or `srt` (SubRip): the whole transcript, `limit` and `offset` not applying',
  })
  @EnumRule(TRANSCRIPT_FORMATS, { optional: true })
  format: TranscriptFormatName = 'json';

  @ApiPropertyOptional({
    example: 'es',
    description:
      'vtt and srt only: every cue in this language (the spoken text where it was spoken in it, else its translation; a segment with neither is left out). Must be a language the room has held; without it each segment is shown as spoken.',
  })
  @StringRule({ optional: true, minLength: 1, maxLength: 35 })
  language?: string;
}

export class TranscriptSegmentView {
  @ApiProperty({ description: 'Stable: a segment reported twice is stored once', example: 'TR_AMkD3x-4f2a1c-7' }) id!: string;
  @ApiProperty({ example: 'alice' }) participant_identity!: string;
  @ApiProperty({ description: 'The language it was spoken in (detected in a mono room)', example: 'en' }) language!: string;
  @ApiProperty({ description: 'What was recognized', example: 'hello everyone' }) text!: string;
  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['language', 'text'],
    properties: { language: { type: 'string', example: 'es' }, text: { type: 'string', example: 'hola a todos' } },
    description: "What the room's other language heard; null when that direction could not be served",
  })
  translation!: { language: string; text: string } | null;
  @ApiProperty({ format: 'date-time', description: 'Wall-clock start of the utterance (UTC, milliseconds)' }) started_at!: Date;
  @ApiProperty({ format: 'date-time', description: 'Wall-clock end of the utterance (UTC, milliseconds)' }) ended_at!: Date;
  @ApiProperty({
    type: 'object',
    nullable: true,
    required: ['text', 'revised_words', 'revised'],
    properties: {
      text: { type: 'string', example: 'shall we start with the budge' },
      revised_words: { type: 'array', items: { type: 'string' }, example: ['budge'] },
      revised: { type: 'boolean', example: true },
    },
    description:
      'Simultaneous translation: the words sent to translation while the speaker went on, in order (what the other language heard translated), and those of them the final recognition (`text`) replaced or dropped; `revised` is true when there are any. null when the utterance was translated whole, after its end (sentence mode, hosted recognizers), and for segments stored before this field',
  })
  committed!: { text: string; revised_words: string[]; revised: boolean } | null;
}

export class TranscriptSettingsDto {
  @ApiProperty({ description: 'false: no new segment of the organization is stored (captions still flow live)', example: true })
  @BoolRule()
  store!: boolean;

  @ApiProperty({
    type: 'integer',
    minimum: MIN_RETENTION_DAYS,
    maximum: MAX_RETENTION_DAYS,
    example: 30,
    description: 'Segments older than this are deleted within an hour',
  })
  @IntRule({ min: MIN_RETENTION_DAYS, max: MAX_RETENTION_DAYS })
  retention_days!: number;
}

export class TranscriptSettingsView {
  @ApiProperty({ example: true }) store!: boolean;
  @ApiProperty({ type: 'integer', minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS, example: 30 }) retention_days!: number;
}
