import { PERMISSIONS, type Permission } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { enumListIssues, StringRule, UuidRule } from '../../common/validation/rules';

/** How far ahead a key's expiry may be. */
const MIN_LIFETIME_MS = 60_000;
const MAX_LIFETIME_MS = 2 * 366 * 24 * 3600_000;

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Production dashboard' })
  @StringRule({ minLength: 1, maxLength: 120 })
  name!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...PERMISSIONS] },
    minItems: 1,
    example: ['rooms:write'],
    description: "what the key may do (within its creator's role); every permission of the creator's role when absent",
  })
  @IsOptional()
  scopes?: unknown;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2027-06-30T00:00:00Z',
    description: 'when the key stops working: 1 minute to 2 years ahead; never when absent',
  })
  @IsOptional()
  expires_at?: unknown;

  static moreIssues(instance: CreateApiKeyDto) {
    return [...enumListIssues('scopes', instance.scopes, PERMISSIONS), ...expiryIssues(instance.expires_at)];
  }
}

function expiryIssues(value: unknown) {
  if (value === undefined || value === null) return [];
  const at =
    typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) {
    return [{ loc: ['expires_at'], msg: 'Input should be a valid datetime with a time zone', type: 'datetime_parsing', input: value }];
  }
  const ahead = at - Date.now();
  if (ahead < MIN_LIFETIME_MS || ahead > MAX_LIFETIME_MS) {
    return [{ loc: ['expires_at'], msg: 'Value error, expires_at should be 1 minute to 2 years ahead', type: 'value_error', input: value }];
  }
  return [];
}

/** The validated inputs of a new key. */
export interface NewKeyRequest {
  name: string;
  scopes: Permission[] | null;
  expiresAt: Date | null;
}

export const newKeyRequest = (body: CreateApiKeyDto): NewKeyRequest => ({
  name: body.name,
  scopes: Array.isArray(body.scopes) ? [...new Set(body.scopes as Permission[])] : null,
  expiresAt: typeof body.expires_at === 'string' ? new Date(body.expires_at) : null,
});

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
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...PERMISSIONS] },
    description: "what the key may do, within its creator's current role",
  })
  scopes!: string[];
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'when the key stops working; null: never' })
  expires_at!: Date | null;
}

export class CreatedApiKeyView extends ApiKeyView {
  @ApiProperty({ description: 'the secret; shown only in this response' }) key!: string;
}
