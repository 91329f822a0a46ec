import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { GlossariesController } from './glossaries.controller';
import { GlossariesService } from './glossaries.service';
import { GlossariesStoreModule } from './glossaries-store.module';
import { GlossaryChangesService } from './glossary-changes.service';

@Module({
  imports: [GlossariesStoreModule, RoomsModule],
  controllers: [GlossariesController],
  providers: [GlossariesService, GlossaryChangesService],
  exports: [GlossariesStoreModule, GlossaryChangesService],
})
export class GlossariesModule {}
