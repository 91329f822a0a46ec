import type { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared-query';

/** The balance with the organization's low-balance threshold (null: no alerts). */
export async function readAccount(
  dataSource: DataSource,
  organizationId: string,
): Promise<{ balance: number; lowBalanceCents: number | null }> {
  const [account] = await preparedQuery<{ balance_cents: number; low_balance_cents: number | null }>(
    dataSource,
    'credit_account',
    `SELECT balance_cents, low_balance_cents FROM credit_accounts WHERE organization_id = $1`,
    [organizationId],
  );
  return { balance: account?.balance_cents ?? 0, lowBalanceCents: account?.low_balance_cents ?? null };
}

/** The organization's balance: one indexed row, kept with every ledger row (0 before any). */
export async function readBalance(dataSource: DataSource, organizationId: string): Promise<number> {
  return (await readAccount(dataSource, organizationId)).balance;
}
