import { Module } from '@nestjs/common';
import { RoomsRepository } from './rooms.repository';

/**
 * The rooms aggregate's repository alone, for the modules that write rooms through it (the meter
 * moves their totals) or read their views (customer events), which the rooms module itself imports.
 */
@Module({
  providers: [RoomsRepository],
  exports: [RoomsRepository],
})
export class RoomsStoreModule {}
