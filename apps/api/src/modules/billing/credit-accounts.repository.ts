import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';
import type { Sql } from '../../database/sql';
import type { BatchedLoader } from '../../common/batching/batched-loader';
import { batchedRows } from '../../common/batching/batched-rows';

/** An organization's balance with its low-balance threshold (null: no alerts). */
export interface CreditAccount {
  balance: number;
  lowBalanceCents: number | null;
}

interface AccountRow {
  organization_id: string;
  balance_cents: number;
  low_balance_cents: number | null;
}

/**
 * Reads of the balance row (one indexed row per organization, kept with every ledger row). Reads of
 * requests arriving together share one statement; each still starts after its request arrived, so a
 * request sees every charge and purchase committed before it.
 */
@Injectable()
export class CreditAccountsRepository {
  private readonly accounts: BatchedLoader<string, AccountRow>;

  constructor(private readonly database: Database) {
    this.accounts = batchedRows<string, AccountRow>(
      database,
      {
        name: 'credit_accounts_by_organization',
        text: `SELECT organization_id, balance_cents, low_balance_cents FROM credit_accounts WHERE organization_id = ANY($1::uuid[])`,
      },
      (row) => row.organization_id,
    );
  }

  /** 0 and no threshold before the organization's first ledger row. */
  async readAccount(organizationId: string): Promise<CreditAccount> {
    const account = await this.accounts.load(organizationId);
    return { balance: account?.balance_cents ?? 0, lowBalanceCents: account?.low_balance_cents ?? null };
  }

  async readBalance(organizationId: string): Promise<number> {
    return (await this.readAccount(organizationId)).balance;
  }

  /** Creates the account row when needed; the balance is left as it is. */
  async setLowBalanceThreshold(organizationId: string, currency: string, cents: number | null, sql: Sql = this.database): Promise<void> {
    await sql.rows(
      `INSERT INTO credit_accounts (organization_id, balance_cents, currency, low_balance_cents) VALUES ($1, 0, $2, $3)
       ON CONFLICT (organization_id) DO UPDATE SET low_balance_cents = EXCLUDED.low_balance_cents`,
      [organizationId, currency, cents],
    );
  }
}
