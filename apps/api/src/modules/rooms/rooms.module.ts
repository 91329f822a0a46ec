import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { GlossariesStoreModule } from '../glossaries/glossaries-store.module';
import { MeteringModule } from '../metering/metering.module';
import { JoinTokensService } from './join-tokens.service';
import { RoomLifecycleService } from './room-lifecycle.service';
import { RoomsController } from './rooms.controller';
import { RoomsService } from './rooms.service';
import { RoomsStoreModule } from './rooms-store.module';
import { TranslatorGlossariesService } from './translator-glossaries.service';
import { TranslatorPresenceService } from './translator-presence.service';

@Module({
  imports: [BillingModule, GlossariesStoreModule, MeteringModule, RoomsStoreModule],
  controllers: [RoomsController],
  providers: [RoomsService, JoinTokensService, RoomLifecycleService, TranslatorPresenceService, TranslatorGlossariesService],
  exports: [RoomsStoreModule, JoinTokensService, RoomLifecycleService, TranslatorPresenceService, TranslatorGlossariesService],
})
export class RoomsModule {}
