import { Module } from '@nestjs/common';
import { GlossariesRepository } from './glossaries.repository';
import { GlossaryDeliveryRepository } from './glossary-delivery.repository';

/**
 * The glossaries aggregate's repositories alone, for the rooms module, which reads a room's glossaries
 * for its translator; the glossaries module itself imports the rooms module.
 */
@Module({
  providers: [GlossariesRepository, GlossaryDeliveryRepository],
  exports: [GlossariesRepository, GlossaryDeliveryRepository],
})
export class GlossariesStoreModule {}
