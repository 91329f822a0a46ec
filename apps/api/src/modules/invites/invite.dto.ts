import { EXPIRES_IN_SECONDS_MAX, EXPIRES_IN_SECONDS_MIN, MAX_USES_MAX, MAX_USES_MIN } from '@app/domain';
import { ApiProperty } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { IntRule } from '../../common/validation/rules';
import { LanguageView } from '../languages/languages.controller';

export class MintInviteDto {
  @ApiProperty({
    type: 'integer',
    minimum: EXPIRES_IN_SECONDS_MIN,
    maximum: EXPIRES_IN_SECONDS_MAX,
    description: 'seconds from now on the server clock',
  })
  @IntRule({ min: EXPIRES_IN_SECONDS_MIN, max: EXPIRES_IN_SECONDS_MAX })
  expires_in_seconds!: number;

  @ApiProperty({ type: 'integer', minimum: MAX_USES_MIN, maximum: MAX_USES_MAX, description: 'number of redemptions' })
  @IntRule({ min: MAX_USES_MIN, max: MAX_USES_MAX })
  max_uses!: number;
}

export class InviteCodeParams {
  @ApiProperty({ description: 'the code exactly as minted' })
  // Any string is looked up: a malformed code (even one with a NUL) is a 404 like an unknown one, never a 422.
  @Allow()
  invite_code!: string;
}

export class MintedInviteView {
  @ApiProperty({ description: 'shown only here; only a hash is kept' }) invite_code!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: Date;
  @ApiProperty({ type: 'integer' }) max_uses!: number;
}

export class InvitePreviewView {
  @ApiProperty({ type: [LanguageView], description: 'exactly the languages a join accepts, alphabetically by name' })
  active_languages!: LanguageView[];
  @ApiProperty({ enum: ['dual', 'mono'], nullable: true, type: String }) mode!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, enum: [1, 2] }) languages_required!: number | null;
  @ApiProperty({ enum: ['created', 'active'] }) room_status!: string;
}
