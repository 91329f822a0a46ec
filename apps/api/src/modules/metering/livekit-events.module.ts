import { Module } from '@nestjs/common';
import { RoomsModule } from '../rooms/rooms.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { LiveKitEventsService } from './livekit-events.service';
import { LiveKitEventsWorker } from './livekit-events.worker';
import { LiveKitReconciliationService } from './livekit-reconciliation.service';
import { MeteringModule } from './metering.module';
import { RoomSettlementService } from './room-settlement.service';

/**
 * Applies the LiveKit events webhooks/ stored (the livekit-events queue) to rooms and connections, and
 * those that reconciliation with LiveKit's own lists concludes.
 * A module of its own so that no import goes in a circle: it imports rooms (which import the meter),
 * the meter, and webhooks (for the stored events); none of them imports it.
 */
@Module({
  imports: [MeteringModule, RoomsModule, WebhooksModule],
  providers: [LiveKitEventsService, LiveKitEventsWorker, RoomSettlementService, LiveKitReconciliationService],
})
export class LiveKitEventsModule {}
