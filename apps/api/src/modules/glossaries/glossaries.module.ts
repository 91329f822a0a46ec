import { Module } from '@nestjs/common';
import { GlossariesController } from './glossaries.controller';
import { GlossariesRepository } from './glossaries.repository';
import { GlossariesService } from './glossaries.service';
import { GlossaryChangesService } from './glossary-changes.service';

@Module({
  controllers: [GlossariesController],
  providers: [GlossariesRepository, GlossariesService, GlossaryChangesService],
  exports: [GlossariesRepository, GlossaryChangesService],
})
export class GlossariesModule {}
