import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { RoomsStoreModule } from '../rooms/rooms-store.module';
import { ConnectionMeter } from './connection-meter';
import { ConnectionsRepository } from './connections.repository';
import { UsageRollup } from './usage-rollup';
import { UsageRollupsRepository } from './usage-rollups.repository';

/**
 * The meter: connections closed with their minutes and charge, the rooms' totals and the usage
 * rollup. Rooms import it (ending a room closes its connections); the LiveKit events that drive it
 * are applied by LiveKitEventsModule, which imports rooms and this module.
 */
@Module({
  imports: [BillingModule, RoomsStoreModule],
  providers: [ConnectionMeter, ConnectionsRepository, UsageRollup, UsageRollupsRepository],
  exports: [ConnectionMeter, ConnectionsRepository, UsageRollup],
})
export class MeteringModule {}
