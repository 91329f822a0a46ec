import { ApiProperty } from '@nestjs/swagger';

export class BurnView {
  @ApiProperty({ type: 'integer', description: 'the balance now (negative after overage)', example: 9_412 }) balance_cents!: number;
  @ApiProperty({ type: 'integer', description: "the organization's connections open now, the translator's included", example: 3 })
  open_connections!: number;
  @ApiProperty({
    type: 'integer',
    description: 'what those connections cost per minute together, each at the rate of its join',
    example: 12,
  })
  cents_per_minute!: number;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'when the balance reaches zero at that rate (now when it has already); null when nothing is open',
    example: '2026-03-01T23:04:00.000Z',
  })
  runs_out_at!: Date | null;
}
