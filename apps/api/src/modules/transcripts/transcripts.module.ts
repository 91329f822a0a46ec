import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { TranscriptIntake } from './transcript-intake';
import { TranscriptReadiness } from './transcript-readiness';
import { TranscriptsController } from './transcripts.controller';
import { TranscriptsRepository } from './transcripts.repository';
import { TranscriptsService } from './transcripts.service';

@Module({
  imports: [RoomsModule],
  controllers: [TranscriptsController],
  providers: [TranscriptsRepository, TranscriptsService, TranscriptIntake, TranscriptReadiness],
  exports: [TranscriptIntake, TranscriptReadiness],
})
export class TranscriptsModule {}
