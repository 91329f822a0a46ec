import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { EnumRule, StringRule, UuidRule } from '../../common/validation/rules';

export const ROOM_NAME_PATTERN = /^[A-Za-z0-9._-]+$/;
export const STREAMING_MODES = ['mono', 'dual'] as const;

export class CreateRoomDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 128,
    pattern: ROOM_NAME_PATTERN.source,
    description: 'unique among the live rooms of the organization',
  })
  @StringRule({
    minLength: 1,
    maxLength: 128,
    optional: true,
    pattern: { regex: ROOM_NAME_PATTERN, description: 'letters, digits, ".", "_" and "-"' },
  })
  room_name?: string;

  @ApiPropertyOptional({
    enum: STREAMING_MODES,
    enumName: 'StreamingMode',
    description:
      '`mono`: one device carries both languages; `dual`: each speaker has their own device. When omitted, the first join token decides.',
  })
  @EnumRule(STREAMING_MODES, { optional: true })
  streaming_mode?: (typeof STREAMING_MODES)[number];
}

export class RoomIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  room_id!: string;
}

export class CreatedRoomView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'the room name (generated when none was sent)' }) room!: string;
  @ApiProperty({ description: 'the realtime address clients connect to' }) url!: string;
  @ApiProperty({ enum: STREAMING_MODES, nullable: true, type: String, description: 'StreamingMode, or null while no mode is settled' })
  streaming_mode!: string | null;
}

export class ParticipantUsageView {
  @ApiProperty({ type: 'integer' }) id!: number;
  @ApiProperty() participant_identity!: string;
  @ApiProperty({ enum: ['member', 'guest', 'translator'], nullable: true, type: String }) participant_kind!: string | null;
  @ApiProperty({ type: [String], nullable: true }) languages!: string[] | null;
  @ApiProperty({ format: 'date-time' }) joined_at!: Date;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) left_at!: Date | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null while connected' }) connection_minutes!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null while connected' }) charged_cents!: number | null;
}

export class RoomView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String, description: 'provisioning identifier of the room' }) sid!: string | null;
  @ApiProperty({ enum: ['created', 'active', 'ended'], enumName: 'RoomStatus' }) status!: string;
  @ApiProperty({ enum: STREAMING_MODES, nullable: true, type: String, description: 'StreamingMode, or null while no mode is settled' })
  streaming_mode!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) started_at!: Date | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) ended_at!: Date | null;
  @ApiProperty({ type: 'integer' }) total_connection_minutes!: number;
  @ApiProperty({ type: 'integer' }) total_charged_cents!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
  @ApiProperty({ description: 'email of whoever started the room' }) created_by!: string;
}

export class RoomDetailView extends RoomView {
  @ApiProperty({ type: [ParticipantUsageView] }) participants!: ParticipantUsageView[];
}

/** The room list's query: a page, optionally of one status. */
export class RoomListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['active', 'ended'], description: 'only the rooms live now (`active`) or those that ended' })
  @EnumRule(['active', 'ended'], { optional: true })
  status?: 'active' | 'ended';
}
