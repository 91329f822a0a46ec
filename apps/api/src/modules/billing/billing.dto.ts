import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { EnumRule, HttpUrlRule, IntRule } from '../../common/validation/rules';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { ParticipantUsageView } from '../rooms/room.dto';

export class CheckoutDto {
  @ApiProperty({ type: 'integer', description: 'within min_topup_cents..max_topup_cents of GET /v1/billing/credit' })
  @IntRule({})
  amount_cents!: number;

  @ApiPropertyOptional({ minLength: 1, maxLength: 2083, description: 'absolute http(s) URL; session_id is appended' })
  @HttpUrlRule({ minLength: 1, maxLength: 2083, optional: true })
  success_url?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 2083, description: 'absolute http(s) URL' })
  @HttpUrlRule({ minLength: 1, maxLength: 2083, optional: true })
  cancel_url?: string;
}

export class CheckoutView {
  @ApiProperty() checkout_id!: string;
  @ApiProperty() checkout_url!: string;
}

export class RateView {
  @ApiProperty({ enum: ['participant', 'translator'], enumName: 'ParticipantClass' }) participant_class!: string;
  @ApiProperty({ type: 'integer' }) cents_per_minute!: number;
}

export class CreditView {
  @ApiProperty({ type: 'integer', description: 'remaining balance; can be negative' }) credit_cents!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'threshold of the credit.low webhook (PUT /v1/billing/alerts); null: off' })
  low_balance_cents!: number | null;
  @ApiProperty() currency!: string;
  @ApiProperty({ type: [RateView] }) rates!: RateView[];
  @ApiProperty({ type: 'integer' }) min_topup_cents!: number;
  @ApiProperty({ type: 'integer' }) max_topup_cents!: number;
}

export const EXPANDS = ['none', 'room', 'participants'] as const;
export type Expand = (typeof EXPANDS)[number];

export class HistoryQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: EXPANDS, enumName: 'HistoryExpand', default: 'participants' })
  @EnumRule(EXPANDS, { optional: true })
  expand: Expand = 'participants';
}

export class RoomUsageView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String, enum: ['mono', 'dual'], description: 'StreamingMode, or null while no mode is settled' })
  streaming_mode!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) started_at!: Date | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) ended_at!: Date | null;
  @ApiProperty({ type: 'integer' }) total_connection_minutes!: number;
  @ApiProperty({ type: 'integer', description: 'equals the sum of the participant breakdown' }) total_charged_cents!: number;
  @ApiPropertyOptional({ type: [ParticipantUsageView], description: 'only with expand=participants; ended connections only' })
  participants?: ParticipantUsageView[];
}

export class HistoryLineView {
  @ApiProperty({ description: '`room_usage` for a call; any other kind is a credit line (purchase, grant, refund, adjustment)' })
  kind!: string;
  @ApiProperty({ format: 'date-time' }) occurred_at!: Date;
  @ApiProperty({ type: 'integer', description: 'negative for spend, positive for credit' }) delta_cents!: number;
  @ApiProperty() currency!: string;
  @ApiPropertyOptional({ type: RoomUsageView, nullable: true, description: 'room_usage lines with expand room or participants' })
  room?: RoomUsageView | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'credit lines only' }) provider_reference?: string | null;
}

export const MAX_LOW_BALANCE_CENTS = 10_000_000;

export class AlertsDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: MAX_LOW_BALANCE_CENTS,
    example: 1000,
    description: 'credit.low is sent when the balance falls below this; null turns it off (credit.exhausted is always sent)',
  })
  @ValidateIf((dto: AlertsDto) => dto.low_balance_cents !== null)
  @IntRule({ min: 0, max: MAX_LOW_BALANCE_CENTS })
  low_balance_cents!: number | null;
}

export class AlertsView {
  @ApiProperty({ type: 'integer', nullable: true, example: 1000, description: 'threshold of credit.low; null: off' })
  low_balance_cents!: number | null;
}
