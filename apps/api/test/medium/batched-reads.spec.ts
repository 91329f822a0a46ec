import type { DataSource } from 'typeorm';
import { OrganizationVersionsRepository } from '../../src/common/caching/organization-versions.repository';
import { DatabaseClient } from '../../src/database/database.client';
import { CreditAccountsRepository } from '../../src/modules/billing/credit-accounts.repository';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * The per-request reads that are batched (balances, cache versions) on the real database, without
 * the application: reads arriving together share statements, each caller gets its own
 * organization's row, and a change committed before a read is always seen by it.
 */
describe('reads batched per organization', () => {
  let databaseUrl: string;
  let db: DataSource;
  let statements: number;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    const pool = mediumPool(db);
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements++;
      return query(...args);
    };
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const newOrganization = async (): Promise<string> => {
    const [{ id }] = (await db.query(`INSERT INTO organizations (name) VALUES ('batched') RETURNING id`)) as { id: string }[];
    return id;
  };

  it('balances: one statement for reads arriving together, each its own account, committed changes seen', async () => {
    const [a, b, none] = [await newOrganization(), await newOrganization(), await newOrganization()];
    await db.query(
      `INSERT INTO credit_accounts (organization_id, balance_cents, currency, low_balance_cents) VALUES ($1, 100, 'usd', 50), ($2, 200, 'usd', NULL)`,
      [a, b],
    );
    const accounts = new CreditAccountsRepository(new DatabaseClient(mediumPool(db)));
    statements = 0;
    const read = await Promise.all([a, b, none, a, b].map((id) => accounts.readAccount(id)));
    expect(read).toEqual([
      { balance: 100, lowBalanceCents: 50 },
      { balance: 200, lowBalanceCents: null },
      { balance: 0, lowBalanceCents: null },
      { balance: 100, lowBalanceCents: 50 },
      { balance: 200, lowBalanceCents: null },
    ]);
    expect(statements).toBeLessThanOrEqual(2); // the first read alone, then the others together
    await db.query(`UPDATE credit_accounts SET balance_cents = 40 WHERE organization_id = $1`, [a]);
    expect(await accounts.readBalance(a)).toBe(40);
  });

  it('versions: "0" before an organization\'s first change, its counter after, per organization', async () => {
    const [a, b] = [await newOrganization(), await newOrganization()];
    const versions = new OrganizationVersionsRepository(new DatabaseClient(mediumPool(db)));
    const read = (id: string) => versions.usageVersion(id);
    expect(await Promise.all([read(a), read(b)])).toEqual(['0', '0']);
    await db.query(`INSERT INTO usage_versions (organization_id, version) VALUES ($1, 7)`, [a]);
    statements = 0;
    expect(await Promise.all([read(a), read(b), read(a)])).toEqual(['7', '0', '7']);
    expect(statements).toBeLessThanOrEqual(2);
  });
});
