import { ROLES } from '@app/domain';
import { ApiProperty } from '@nestjs/swagger';
import { EnumRule, StringRule, UuidRule } from '../../common/validation/rules';

export class MemberView {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ example: 'ada@example.com' }) email!: string;
  @ApiProperty({ example: 'Ada' }) first_name!: string;
  @ApiProperty({ example: 'Lovelace' }) last_name!: string;
  @ApiProperty({ enum: [...ROLES] }) role!: string;
  @ApiProperty({ format: 'date-time' }) joined_at!: Date;
}

export class UserIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  user_id!: string;
}

export class ChangeRoleDto {
  @ApiProperty({ enum: [...ROLES], example: 'developer' })
  @EnumRule(ROLES)
  role!: string;
}

export class CreateInvitationDto {
  @ApiProperty({ maxLength: 254, example: 'grace@example.com', description: 'who may accept it: a session with this verified email' })
  @StringRule({ minLength: 3, maxLength: 254, pattern: { regex: /^[^\s@]+@[^\s@]+$/, description: 'an email address' } })
  email!: string;

  @ApiProperty({ enum: [...ROLES], example: 'viewer' })
  @EnumRule(ROLES)
  role!: string;
}

export class InvitationView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'grace@example.com' }) email!: string;
  @ApiProperty({ enum: [...ROLES] }) role!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
  @ApiProperty({ format: 'date-time', description: '7 days after it was made' }) expires_at!: Date;
}

export class CreatedInvitationView extends InvitationView {
  @ApiProperty({ description: 'what the invited person sends to accept it; shown only in this response' }) invitation_token!: string;
}

export class InvitationIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  id!: string;
}

export class AcceptInvitationDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'inv_4mB…' })
  @StringRule({ minLength: 1, maxLength: 200 })
  invitation_token!: string;
}

export class MembershipView {
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty({ example: 'Acme' }) name!: string;
  @ApiProperty({ enum: [...ROLES] }) role!: string;
  @ApiProperty({ format: 'date-time' }) joined_at!: Date;
}
