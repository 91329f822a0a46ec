import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { CreditAccountsRepository } from '../../src/modules/billing/credit-accounts.repository';
import { ConnectionsRepository } from '../../src/modules/metering/connections.repository';
import { RoomsRepository } from '../../src/modules/rooms/rooms.repository';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';
import { MediumRows } from '../support/medium-rows';
import { rawRows } from '../support/raw-statements';

/**
 * A write runs in the transaction its caller opened (docs/decisions.md "Writers take their
 * transaction"): a repository method that writes takes a `Tx`, which only `DatabaseClient` hands out,
 * and the pool is not one. The `@ts-expect-error` lines are the test that matters: if the pool ever
 * satisfies a writer again, they stop being errors and the typecheck fails.
 */
describe('writers take their transaction', () => {
  let url: string;
  let db: DataSource;
  let database: DatabaseClient;

  beforeAll(async () => {
    ({ url, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
  });
  afterAll(async () => closeMediumDatabase(url, db));

  it('the pool does not compile where a writer wants its transaction', () => {
    const accounts = new CreditAccountsRepository(database);
    const connections = new ConnectionsRepository(database);
    const rooms = new RoomsRepository(database);
    // Never called: only the types are under test here.
    const forgotten = [
      // @ts-expect-error the pool is not a transaction
      () => accounts.moveBalance('org', -5, 'usd', database),
      // @ts-expect-error a forgotten transaction does not default to the pool
      () => accounts.insertCharges([], 'usd'),
      // @ts-expect-error the pool is not a transaction
      () => connections.moveEndsEarlier([], database),
      // @ts-expect-error the pool is not a transaction
      () => rooms.addToTotals([], database),
    ];
    expect(forgotten).toHaveLength(4);
  });

  it('oneStatement runs a lone write, and refuses a second statement before it reaches the database', async () => {
    const owner = await new MediumRows(db).organization('one statement');
    const accounts = new CreditAccountsRepository(database);

    await database.oneStatement((tx) => accounts.setLowBalanceThreshold(owner.organizationId, 'usd', 250, tx));
    expect((await accounts.readAccount(owner.organizationId)).lowBalanceCents).toBe(250);

    await expect(
      database.oneStatement(async (tx) => {
        await accounts.moveBalance(owner.organizationId, 100, 'usd', tx);
        await accounts.moveBalance(owner.organizationId, 100, 'usd', tx);
      }),
    ).rejects.toThrow(/oneStatement runs one statement/);
    const [row] = await rawRows<{ balance_cents: number }>(
      database,
      `SELECT balance_cents FROM credit_accounts WHERE organization_id = $1`,
      [owner.organizationId],
    );
    expect(row.balance_cents).toBe(100);
  });
});
