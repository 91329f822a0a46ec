import type { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared-query';

/** The organization's balance: one indexed row, kept with every ledger row (0 before any). */
export async function readBalance(dataSource: DataSource, organizationId: string): Promise<number> {
  const [account] = await preparedQuery<{ balance_cents: number }>(
    dataSource,
    'credit_balance',
    `SELECT balance_cents FROM credit_accounts WHERE organization_id = $1`,
    [organizationId],
  );
  return account?.balance_cents ?? 0;
}
