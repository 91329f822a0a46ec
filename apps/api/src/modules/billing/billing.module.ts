import { Module } from '@nestjs/common';
import { CreditGate } from './credit-gate';
import { Ledger } from './ledger';

@Module({ providers: [CreditGate, Ledger], exports: [CreditGate, Ledger] })
export class BillingModule {}
