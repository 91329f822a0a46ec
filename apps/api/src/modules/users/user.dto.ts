import { ApiProperty } from '@nestjs/swagger';

export class UserView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ description: 'empty when unknown' }) first_name!: string;
  @ApiProperty({ description: 'empty when unknown' }) last_name!: string;
  @ApiProperty({ description: 'empty when unknown' }) image_url!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: Date;
}
