import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { MeteringModule } from '../metering/metering.module';
import { JoinTokensService } from './join-tokens.service';
import { RoomLifecycle } from './room-lifecycle';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { RoomsRepository } from './rooms.repository';
import { TranslatorPresence } from './translator-presence';

@Module({
  imports: [BillingModule, MeteringModule],
  controllers: [RoomsController],
  providers: [RoomsService, RoomsRepository, JoinTokensService, RoomLifecycle, TranslatorPresence],
  exports: [RoomsRepository, JoinTokensService, RoomLifecycle, TranslatorPresence],
})
export class RoomsModule {}
