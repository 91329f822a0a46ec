import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { IdempotencyRepository, type KeyLifetime } from '../../src/modules/idempotency/idempotency.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

const LIFETIME: KeyLifetime = { lifetimeHours: 24, abandonedAfterSeconds: 120 };
const ANSWER = { statusCode: 201, contentType: 'application/json; charset=utf-8', body: '{"id":"x"}' };

/** Idempotency keys on the real database, without the application: per organization, expiring, abandoned keys freed. */
describe('IdempotencyRepository', () => {
  let database: DatabaseClient;
  let databaseUrl: string;
  let dataSource: DataSource;
  let keys: IdempotencyRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    keys = new IdempotencyRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  const newOrganization = async (): Promise<string> => {
    const [{ id }] = (await dataSource.query(`INSERT INTO organizations (name) VALUES ('idempotency') RETURNING id`)) as { id: string }[];
    return id;
  };
  const age = (organizationId: string, key: string, interval: string) =>
    dataSource.query(`UPDATE idempotency_keys SET created_at = now() - $3::interval WHERE organization_id = $1 AND key = $2`, [
      organizationId,
      key,
      interval,
    ]);

  it('claims a key once, keeps the first answer with it, and per organization', async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    expect(await keys.claim(a, 'k1', 'fp-1', LIFETIME, autocommit(database))).toBe(true);
    expect(await keys.claim(a, 'k1', 'fp-1', LIFETIME, autocommit(database))).toBe(false);
    expect(await keys.find(a, 'k1')).toEqual({ fingerprint: 'fp-1', status_code: null, content_type: null, body: null });

    await keys.complete(a, 'k1', ANSWER, autocommit(database));
    expect(await keys.find(a, 'k1')).toEqual({
      fingerprint: 'fp-1',
      status_code: 201,
      content_type: 'application/json; charset=utf-8',
      body: '{"id":"x"}',
    });

    // The same key of another organization is another key.
    expect(await keys.find(b, 'k1')).toBeUndefined();
    expect(await keys.claim(b, 'k1', 'fp-other', LIFETIME, autocommit(database))).toBe(true);
    await keys.complete(b, 'k1', { statusCode: 200, contentType: null, body: '' }, autocommit(database));
    expect((await keys.find(a, 'k1'))?.status_code).toBe(201);
    await keys.forget(b, 'k1', autocommit(database));
    expect(await keys.find(b, 'k1')).toBeUndefined();
    expect(await keys.find(a, 'k1')).toMatchObject({ status_code: 201 });
  });

  it('frees a forgotten key (a server error) for a retry that runs afresh', async () => {
    const a = await newOrganization();
    expect(await keys.claim(a, 'retry', 'fp', LIFETIME, autocommit(database))).toBe(true);
    await keys.forget(a, 'retry', autocommit(database));
    expect(await keys.claim(a, 'retry', 'fp', LIFETIME, autocommit(database))).toBe(true);
  });

  it('takes over an expired key or an abandoned first request as new, never a live or answered one', async () => {
    const a = await newOrganization();
    await keys.claim(a, 'expired', 'old', LIFETIME, autocommit(database));
    await keys.complete(a, 'expired', ANSWER, autocommit(database));
    await age(a, 'expired', '25 hours');
    expect(await keys.claim(a, 'expired', 'new', LIFETIME, autocommit(database))).toBe(true);
    expect(await keys.find(a, 'expired')).toEqual({ fingerprint: 'new', status_code: null, content_type: null, body: null });

    await keys.claim(a, 'abandoned', 'old', LIFETIME, autocommit(database));
    await age(a, 'abandoned', '3 minutes');
    expect(await keys.claim(a, 'abandoned', 'new', LIFETIME, autocommit(database))).toBe(true);

    await keys.claim(a, 'running', 'old', LIFETIME, autocommit(database));
    await age(a, 'running', '1 minute');
    expect(await keys.claim(a, 'running', 'new', LIFETIME, autocommit(database))).toBe(false);

    await keys.claim(a, 'answered', 'old', LIFETIME, autocommit(database));
    await keys.complete(a, 'answered', ANSWER, autocommit(database));
    await age(a, 'answered', '3 minutes');
    expect(await keys.claim(a, 'answered', 'new', LIFETIME, autocommit(database))).toBe(false);
    expect(await keys.find(a, 'answered')).toMatchObject({ fingerprint: 'old', status_code: 201 });
  });

  it('cleans up only the expired keys, of every organization, and says how many', async () => {
    await dataSource.query(`DELETE FROM idempotency_keys`);
    const a = await newOrganization();
    const b = await newOrganization();
    for (const [organizationId, key] of [
      [a, 'old-1'],
      [b, 'old-2'],
      [a, 'fresh'],
      [b, 'day-old-not-yet'],
    ]) {
      await keys.claim(organizationId, key, 'fp', LIFETIME, autocommit(database));
    }
    await age(a, 'old-1', '25 hours');
    await age(b, 'old-2', '30 days');
    await age(b, 'day-old-not-yet', '23 hours');
    expect(await keys.deleteExpired(24, autocommit(database))).toBe(2);
    expect(await keys.find(a, 'old-1')).toBeUndefined();
    expect(await keys.find(b, 'old-2')).toBeUndefined();
    expect(await keys.find(a, 'fresh')).toBeDefined();
    expect(await keys.find(b, 'day-old-not-yet')).toBeDefined();
    expect(await keys.deleteExpired(24, autocommit(database))).toBe(0);
  });
});
