import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BatchedLoader } from '../../common/batching/batched-loader';
import { preparedQuery } from '../../database/prepared-query';

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
  private readonly accounts = new BatchedLoader<string, AccountRow>(
    async (organizationIds) => {
      const rows = await preparedQuery<AccountRow>(
        this.dataSource,
        'credit_accounts_by_organization',
        `SELECT organization_id, balance_cents, low_balance_cents FROM credit_accounts WHERE organization_id = ANY($1::uuid[])`,
        [organizationIds],
      );
      return new Map(rows.map((row) => [row.organization_id, row]));
    },
    { maxBatch: 100, parallel: 1 },
  );

  constructor(private readonly dataSource: DataSource) {}

  /** 0 and no threshold before the organization's first ledger row. */
  async readAccount(organizationId: string): Promise<CreditAccount> {
    const account = await this.accounts.load(organizationId);
    return { balance: account?.balance_cents ?? 0, lowBalanceCents: account?.low_balance_cents ?? null };
  }

  async readBalance(organizationId: string): Promise<number> {
    return (await this.readAccount(organizationId)).balance;
  }
}
