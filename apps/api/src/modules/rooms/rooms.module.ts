import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { MeteringModule } from '../metering/metering.module';
import { JoinTokensService } from './join-tokens.service';
import { RoomLifecycle } from './room-lifecycle';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { RoomsStoreModule } from './rooms-store.module';
import { TranslatorPresence } from './translator-presence';

@Module({
  imports: [BillingModule, MeteringModule, RoomsStoreModule],
  controllers: [RoomsController],
  providers: [RoomsService, JoinTokensService, RoomLifecycle, TranslatorPresence],
  exports: [RoomsStoreModule, JoinTokensService, RoomLifecycle, TranslatorPresence],
})
export class RoomsModule {}
