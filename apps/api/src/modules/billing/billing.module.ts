import { Module } from '@nestjs/common';
import { CachingModule } from '../../common/caching/caching.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { BillingController } from './billing.controller';
import { BillingHistoryRepository } from './billing-history.repository';
import { BillingHistoryService } from './billing-history.service';
import { CheckoutService } from './checkout.service';
import { CreditService } from './credit.service';
import { LowBalanceAlertsService } from './low-balance-alerts.service';
import { CheckoutPagesController } from './checkout-pages.controller';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { CreditGateService } from './credit-gate.service';
import { LedgerService } from './ledger.service';
import { PurchaseSettlementService } from './purchase-settlement.service';
import { StripeGateway } from './stripe.gateway';

@Module({
  imports: [CachingModule, OrganizationsModule],
  controllers: [BillingController, CheckoutPagesController],
  providers: [
    BillingHistoryRepository,
    BillingHistoryService,
    CheckoutService,
    CreditService,
    LowBalanceAlertsService,
    CreditAccountsRepository,
    CreditGateService,
    LedgerService,
    PurchaseSettlementService,
    StripeGateway,
  ],
  exports: [CreditAccountsRepository, CreditGateService, LedgerService, PurchaseSettlementService, StripeGateway],
})
export class BillingModule {}
