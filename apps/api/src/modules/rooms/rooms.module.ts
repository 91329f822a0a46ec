import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { MeteringModule } from '../metering/metering.module';
import { JoinTokensService } from './join-tokens.service';
import { RoomLifecycle } from './room-lifecycle';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { TranslatorPresence } from './translator-presence';

@Module({
  imports: [BillingModule, MeteringModule],
  controllers: [RoomsController],
  providers: [RoomsService, JoinTokensService, RoomLifecycle, TranslatorPresence],
  exports: [JoinTokensService, RoomLifecycle, TranslatorPresence],
})
export class RoomsModule {}
