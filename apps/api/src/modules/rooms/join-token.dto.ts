import { validateRequestedLanguages } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray } from 'class-validator';
import { Required, StringRule } from '../../common/validation/rules';

const LIST = { context: { type: 'list_type', msg: 'Input should be a valid list', rank: 1 } };

function languageIssues(instance: { languages?: unknown }, failed: ReadonlySet<string>) {
  if (failed.has('languages') || !Array.isArray(instance.languages)) return [];
  const languages = instance.languages as unknown[];
  // Each entry that is not text is named where it stands, as Pydantic does for a list of strings.
  const notText = languages.flatMap((code, i) =>
    typeof code === 'string' ? [] : [{ loc: ['languages', i], msg: 'Input should be a valid string', type: 'string_type', input: code }],
  );
  if (notText.length > 0) return notText;
  const result = validateRequestedLanguages(languages as string[]);
  return result.ok ? [] : result.error.map((issue) => ({ ...issue, loc: [...issue.loc], ctx: issue.ctx ? { ...issue.ctx } : undefined }));
}

export class LanguagesBody {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 2,
    example: ['en', 'de'],
    description: '1 or 2 distinct codes from GET /v1/supported-languages',
  })
  @Required()
  @IsArray(LIST)
  languages!: string[];
}

export class JoinTokenDto extends LanguagesBody {
  @ApiPropertyOptional({ minLength: 1, maxLength: 128, description: 'any text, unique within the room; generated when absent' })
  @StringRule({ minLength: 1, maxLength: 128, optional: true })
  identity?: string;

  @ApiPropertyOptional({ maxLength: 128, description: 'display name; empty means none' })
  @StringRule({ maxLength: 128, optional: true })
  name?: string;

  static moreIssues(instance: JoinTokenDto, failed: ReadonlySet<string>) {
    return languageIssues(instance, failed);
  }
}

export class InviteJoinDto extends LanguagesBody {
  @ApiPropertyOptional({ maxLength: 128, description: 'display name of the guest; empty means none' })
  @StringRule({ maxLength: 128, optional: true })
  name?: string;

  static moreIssues(instance: InviteJoinDto, failed: ReadonlySet<string>) {
    return languageIssues(instance, failed);
  }
}

export class RoomNameParams {
  @ApiProperty()
  @StringRule({ minLength: 1, maxLength: 128 })
  room_name!: string;
}

export class JoinTokenView {
  @ApiProperty({ description: 'LiveKit access token for the room' }) token!: string;
  @ApiProperty({ description: 'the realtime address to connect to' }) url!: string;
  @ApiProperty({ description: 'the room name' }) room!: string;
  @ApiProperty() identity!: string;
  @ApiProperty({ type: [String] }) languages!: string[];
  @ApiProperty({ enum: ['mono', 'dual'], enumName: 'StreamingMode' }) streaming_mode!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: Date;
}
