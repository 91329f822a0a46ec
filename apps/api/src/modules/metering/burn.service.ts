import { runsOutAt } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { CreditAccountsRepository } from '../billing/credit-accounts.repository';
import type { BurnView } from './burn.dto';
import { ConnectionsRepository } from './connections.repository';

/** `GET /v1/billing/burn`: what the open connections cost per minute now, and when the credit runs out at that rate. */
@Injectable()
export class BurnService {
  constructor(
    private readonly accounts: CreditAccountsRepository,
    private readonly connections: ConnectionsRepository,
  ) {}

  async view(actor: Actor): Promise<BurnView> {
    const [{ balance }, { open, centsPerMinute }] = await Promise.all([
      this.accounts.readAccount(actor.organizationId),
      this.connections.openCost(actor.organizationId),
    ]);
    return {
      balance_cents: balance,
      open_connections: open,
      cents_per_minute: centsPerMinute,
      runs_out_at: runsOutAt(balance, centsPerMinute, Date.now()),
    };
  }
}
