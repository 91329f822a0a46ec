import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { MeteringModule } from '../metering/metering.module';
import { JoinTokensService } from './join-tokens.service';
import { RoomLifecycleService } from './room-lifecycle.service';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { RoomsStoreModule } from './rooms-store.module';
import { TranslatorPresenceService } from './translator-presence.service';

@Module({
  imports: [BillingModule, MeteringModule, RoomsStoreModule],
  controllers: [RoomsController],
  providers: [RoomsService, JoinTokensService, RoomLifecycleService, TranslatorPresenceService],
  exports: [RoomsStoreModule, JoinTokensService, RoomLifecycleService, TranslatorPresenceService],
})
export class RoomsModule {}
