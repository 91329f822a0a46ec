import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module';
import { ConnectionMeter } from './connection-meter';

@Module({ imports: [BillingModule], providers: [ConnectionMeter], exports: [ConnectionMeter] })
export class MeteringModule {}
