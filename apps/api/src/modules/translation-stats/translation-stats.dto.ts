import { ApiProperty } from '@nestjs/swagger';

export class DirectionStatsView {
  @ApiProperty({ example: 'en>de', description: 'source language > target language' }) direction!: string;
  @ApiProperty({ example: 'en' }) source_language!: string;
  @ApiProperty({ example: 'de' }) target_language!: string;
  @ApiProperty({ type: 'integer', description: 'utterances measured' }) samples!: number;
  @ApiProperty({
    type: 'integer',
    description: 'median milliseconds from end of speech to first translated audio (sample-weighted over the reports)',
  })
  p50_ms!: number;
  @ApiProperty({ type: 'integer', description: '95th percentile of the same (the worst reported interval)' }) p95_ms!: number;
  @ApiProperty({ type: 'number', description: 'seconds of translated audio published in this direction' }) audio_seconds!: number;
  @ApiProperty({ format: 'date-time' }) last_reported_at!: Date;
}

export class TranslationStatsView {
  @ApiProperty({ format: 'uuid' }) room_id!: string;
  @ApiProperty({ description: 'whether a translator is in the room now, as last reported' }) translator_present!: boolean;
  @ApiProperty({ type: 'integer', description: 'how many times a translator joined the room' }) translator_sessions!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) first_joined_at!: Date | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_left_at!: Date | null;
  @ApiProperty({ type: 'number', description: 'seconds of translated audio, all directions' }) audio_seconds!: number;
  @ApiProperty({ type: [DirectionStatsView], description: 'ordered by direction' }) directions!: DirectionStatsView[];
}
