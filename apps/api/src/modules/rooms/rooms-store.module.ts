import { Module } from '@nestjs/common';
import { RoomTokensRepository } from './room-tokens.repository';
import { RoomsRepository } from './rooms.repository';

/**
 * The rooms aggregate's repositories alone (rooms, and the tokens issued for them), for the modules that write rooms through it (the meter
 * moves their totals) or read their views (customer events), which the rooms module itself imports.
 */
@Module({
  providers: [RoomsRepository, RoomTokensRepository],
  exports: [RoomsRepository, RoomTokensRepository],
})
export class RoomsStoreModule {}
