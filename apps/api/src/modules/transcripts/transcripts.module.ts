import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { TranscriptIntakeService } from './transcript-intake.service';
import { TranscriptReadinessService } from './transcript-readiness.service';
import { TranscriptsController } from './transcripts.controller';
import { TranscriptsRepository } from './transcripts.repository';
import { TranscriptsService } from './transcripts.service';

@Module({
  imports: [RoomsModule],
  controllers: [TranscriptsController],
  providers: [TranscriptsRepository, TranscriptsService, TranscriptIntakeService, TranscriptReadinessService],
  exports: [TranscriptIntakeService, TranscriptReadinessService],
})
export class TranscriptsModule {}
