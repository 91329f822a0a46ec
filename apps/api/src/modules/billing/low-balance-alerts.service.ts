import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { AlertsDto, AlertsView } from './billing.dto';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { DatabaseClient } from '../../database/database.client';
import { AuditLogService } from '../audit/audit-log.service';

/**
 * `GET`/`PUT /v1/billing/alerts`: the organization's low-balance threshold. The alerts themselves are
 * decided where the balance moves (LedgerService), when it crosses the threshold.
 */
@Injectable()
export class LowBalanceAlertsService {
  constructor(
    private readonly accounts: CreditAccountsRepository,
    private readonly database: DatabaseClient,
    private readonly audit: AuditLogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async read(actor: Actor): Promise<AlertsView> {
    const { lowBalanceCents } = await this.accounts.readAccount(actor.organizationId);
    return { low_balance_cents: lowBalanceCents };
  }

  /** Setting the threshold sends nothing: an alert is sent when the balance crosses it. */
  async set(actor: Actor, dto: AlertsDto): Promise<AlertsView> {
    const { currency } = this.config.credit;
    await this.database.transaction(async (tx) => {
      await this.accounts.setLowBalanceThreshold(actor.organizationId, currency, dto.low_balance_cents, tx);
      await this.audit.record(tx, actor, {
        action: 'billing.alerts_changed',
        target: { type: 'organization', id: actor.organizationId },
        details: { low_balance_cents: dto.low_balance_cents },
      });
    });
    return { low_balance_cents: dto.low_balance_cents };
  }
}
