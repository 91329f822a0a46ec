import { ApiProperty } from '@nestjs/swagger';
import { StringRule, UuidRule } from '../../common/validation/rules';

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Production dashboard' })
  @StringRule({ minLength: 1, maxLength: 120 })
  name!: string;
}

export class ApiKeyIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  key_id!: string;
}

export class ApiKeyView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ minLength: 1, maxLength: 120 }) name!: string;
  @ApiProperty({ example: 'trk_AbCd' }) key_prefix!: string;
  @ApiProperty({ example: 'wXyZ' }) key_last4!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'null until the key is first used; updated at most once a minute',
  })
  last_used_at!: Date | null;
  @ApiProperty({ description: 'email of the user who created the key' }) created_by!: string;
}

export class CreatedApiKeyView extends ApiKeyView {
  @ApiProperty({ description: 'the secret; shown only in this response' }) key!: string;
}
