import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
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

  constructor(dataSource: DataSource) {
    this.accounts = batchedRows<string, AccountRow>(
      dataSource,
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
}
