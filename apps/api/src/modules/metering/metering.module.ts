import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { RoomsStoreModule } from '../rooms/rooms-store.module';
import { BurnController } from './burn.controller';
import { BurnService } from './burn.service';
import { ConnectionMeterService } from './connection-meter.service';
import { ConnectionsRepository } from './connections.repository';
import { UsageRollupService } from './usage-rollup.service';
import { UsageRollupsRepository } from './usage-rollups.repository';

/**
 * The meter: connections closed with their minutes and charge, the rooms' totals and the usage
 * rollup. Rooms import it (ending a room closes its connections); the LiveKit events that drive it
 * are applied by LiveKitEventsModule, which imports rooms and this module.
 */
@Module({
  imports: [BillingModule, RoomsStoreModule],
  controllers: [BurnController],
  providers: [ConnectionMeterService, ConnectionsRepository, UsageRollupService, UsageRollupsRepository, BurnService],
  exports: [ConnectionMeterService, ConnectionsRepository, UsageRollupService],
})
export class MeteringModule {}
