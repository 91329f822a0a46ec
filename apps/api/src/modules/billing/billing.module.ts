import { Module } from '@nestjs/common';
import { BillingController } from './billing.controller';
import { BillingService } from './billing.service';
import { CheckoutPagesController } from './checkout-pages.controller';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { CreditGate } from './credit-gate';
import { Ledger } from './ledger';
import { PurchaseSettlement } from './purchase-settlement';
import { StripeGateway } from './stripe.gateway';

@Module({
  controllers: [BillingController, CheckoutPagesController],
  providers: [BillingService, CreditAccountsRepository, CreditGate, Ledger, PurchaseSettlement, StripeGateway],
  exports: [CreditAccountsRepository, CreditGate, Ledger, PurchaseSettlement, StripeGateway],
})
export class BillingModule {}
