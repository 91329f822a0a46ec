import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { enumListIssues, StringRule, UuidRule } from '../../common/validation/rules';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { CUSTOMER_EVENT_TYPES } from './event-types';

export const MAX_URL_LENGTH = 2048;

export class CreateWebhookEndpointDto {
  @ApiProperty({
    maxLength: MAX_URL_LENGTH,
    example: 'https://example.com/webhooks/translation-rooms',
    description: 'absolute https URL whose host resolves to public addresses only',
  })
  @StringRule({ minLength: 1, maxLength: MAX_URL_LENGTH })
  url!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...CUSTOMER_EVENT_TYPES] },
    minItems: 1,
    example: ['room.ended', 'credit.low'],
    description: 'event types to receive; every type when absent',
  })
  @IsOptional()
  events?: unknown;

  @ApiPropertyOptional({ maxLength: 200, example: 'Billing dashboard' })
  @StringRule({ maxLength: 200, optional: true })
  description?: string;

  static moreIssues(instance: CreateWebhookEndpointDto) {
    return enumListIssues('events', instance.events, CUSTOMER_EVENT_TYPES);
  }
}

export class WebhookEndpointIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  id!: string;
}

export class DeliveryIdParams extends WebhookEndpointIdParams {
  @ApiProperty({ format: 'uuid' })
  @UuidRule()
  delivery_id!: string;
}

export class DeliveriesQueryDto extends PageQueryDto {}

export class WebhookEndpointView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'https://example.com/webhooks/translation-rooms' }) url!: string;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...CUSTOMER_EVENT_TYPES] }, description: 'the event types it receives' })
  events!: string[];
  @ApiProperty({ type: String, nullable: true, maxLength: 200 }) description!: string | null;
  @ApiProperty({ example: true }) enabled!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
}

export class CreatedWebhookEndpointView extends WebhookEndpointView {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'signing secret (`whsec_` + base64 of 32 random bytes); shown only in this response',
  })
  secret!: string;
}

export class DeliveryView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'evt_5f1c0d2a9e8b4c7d9a3e2f1b0c4d5e6f', description: 'the `webhook-id` header, the same on every attempt' })
  event_id!: string;
  @ApiProperty({ enum: [...CUSTOMER_EVENT_TYPES] }) event_type!: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] }) status!: string;
  @ApiProperty({ type: 'integer', description: 'attempts made so far' }) attempts!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status of the last attempt; null when it got no answer' })
  last_status_code!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'why the last attempt failed' }) last_error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when the next attempt is due; null unless pending' })
  next_attempt_at!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) delivered_at!: Date | null;
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
}
