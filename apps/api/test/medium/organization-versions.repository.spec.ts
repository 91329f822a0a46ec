import type { DataSource } from 'typeorm';
import { OrganizationVersionsRepository } from '../../src/common/caching/organization-versions.repository';
import { DatabaseClient } from '../../src/database/database.client';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';
import { MediumRows } from '../support/medium-rows';
import { rawRows } from '../support/raw-statements';

/**
 * The change counters the history and usage caches are validated by, on the real database: '0' before an
 * organization's first change, then its own counter, never another organization's nor the other cache's.
 */
describe('OrganizationVersionsRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let rows: MediumRows;
  let versions: OrganizationVersionsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    rows = new MediumRows(dataSource);
    versions = new OrganizationVersionsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  const both = async (organizationId: string) => ({
    history: await versions.historyVersion(organizationId),
    usage: await versions.usageVersion(organizationId),
  });

  it("reads each organization's history and usage versions, '0' before the first change", async () => {
    const a = (await rows.organization()).organizationId;
    const b = (await rows.organization()).organizationId;
    expect(await both(a)).toEqual({ history: '0', usage: '0' });

    await rawRows(database, `INSERT INTO history_versions (organization_id, version) VALUES ($1, 12)`, [a]);
    await rawRows(database, `INSERT INTO usage_versions (organization_id, version) VALUES ($1, 34), ($2, 5)`, [a, b]);
    expect(await both(a)).toEqual({ history: '12', usage: '34' });
    expect(await both(b)).toEqual({ history: '0', usage: '5' });

    // Read together (requests arriving at once share a statement): each gets its own organization's.
    expect(await Promise.all([versions.usageVersion(b), versions.usageVersion(a), versions.historyVersion(b)])).toEqual(['5', '34', '0']);
  });

  it("moves with a change to a row a history page shows, for that room's organization only", async () => {
    const a = await rows.organization();
    const b = await rows.organization();
    const room = await rows.room(a);
    const before = { a: await both(a.organizationId), b: await both(b.organizationId) };

    await rawRows(database, `UPDATE rooms SET started_at = now(), status = 'active' WHERE id = $1`, [room]);

    const after = { a: await both(a.organizationId), b: await both(b.organizationId) };
    expect(Number(after.a.history)).toBeGreaterThan(Number(before.a.history));
    expect(after.b).toEqual(before.b);
  });
});
