import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { UsageRollup } from '../usage/usage-rollup';
import { ConnectionMeter } from './connection-meter';

@Module({ imports: [BillingModule], providers: [ConnectionMeter, UsageRollup], exports: [ConnectionMeter, UsageRollup] })
export class MeteringModule {}
