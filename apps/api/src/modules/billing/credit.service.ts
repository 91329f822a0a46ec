import { PARTICIPANT_CLASSES, rateFor } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { CreditView } from './billing.dto';
import { CreditAccountsRepository } from './credit-accounts.repository';

/** `GET /v1/billing/credit`: the balance with the rates and top-up bounds it is spent and bought at. */
@Injectable()
export class CreditService {
  constructor(
    private readonly accounts: CreditAccountsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async view(actor: Actor): Promise<CreditView> {
    const { balance, lowBalanceCents } = await this.accounts.readAccount(actor.organizationId);
    const { credit, rates } = this.config;
    return {
      credit_cents: balance,
      low_balance_cents: lowBalanceCents,
      currency: credit.currency,
      rates: PARTICIPANT_CLASSES.map((participantClass) => ({
        participant_class: participantClass,
        cents_per_minute: rateFor(rates, participantClass),
      })),
      min_topup_cents: credit.minTopupCents,
      max_topup_cents: credit.maxTopupCents,
    };
  }
}
