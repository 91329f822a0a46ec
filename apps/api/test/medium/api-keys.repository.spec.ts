import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { ApiKeysRepository, type NewApiKey } from '../../src/modules/api-keys/api-keys.repository';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** API keys on the real database, without the application: each organization sees and revokes its own keys only. */
describe('ApiKeysRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let keys: ApiKeysRepository;
  let organizations: OrganizationsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    keys = new ApiKeysRepository(database);
    organizations = new OrganizationsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  const newOrganization = async (email = 'owner@example.test') => {
    const organizationId = await organizations.insert('keys', autocommit(database));
    const userId = await organizations.insertUser(organizationId, { email, firstName: '', lastName: '' }, 'owner', autocommit(database));
    return { organizationId, userId };
  };
  const newKey = (userId: string, name = 'key'): NewApiKey & { hex: string } => {
    const keyHash = randomBytes(32);
    return { userId, name, keyPrefix: 'trk_Abcd', keyLast4: 'wxyz', keyHash, scopes: null, expiresAt: null, hex: keyHash.toString('hex') };
  };

  it('creates a key as its organization sees it: no secret, its creator by email, never used yet', async () => {
    const { organizationId, userId } = await newOrganization('creator@example.test');
    const created = await keys.insert(organizationId, newKey(userId, 'Production'), autocommit(database));
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Production',
      key_prefix: 'trk_Abcd',
      key_last4: 'wxyz',
      created_at: expect.any(Date),
      last_used_at: null,
      created_by: 'creator@example.test',
      scopes: null,
      expires_at: null,
    });
    expect(await keys.countActive(organizationId)).toBe(1);
  });

  it("lists an organization's live keys newest first, a page at a time, never another organization's or a revoked one", async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const first = await keys.insert(a.organizationId, newKey(a.userId, 'first'), autocommit(database));
    const second = await keys.insert(a.organizationId, newKey(a.userId, 'second'), autocommit(database));
    const revoked = await keys.insert(a.organizationId, newKey(a.userId, 'revoked'), autocommit(database));
    const third = await keys.insert(a.organizationId, newKey(a.userId, 'third'), autocommit(database));
    await keys.insert(b.organizationId, newKey(b.userId, 'other organization'), autocommit(database));
    expect(await keys.revoke(a.organizationId, revoked.id, autocommit(database))).toBe(true);

    expect((await keys.listActive(a.organizationId, 10, 0)).map((key) => key.name)).toEqual(['third', 'second', 'first']);
    expect((await keys.listActive(a.organizationId, 2, 0)).map((key) => key.id)).toEqual([third.id, second.id]);
    expect((await keys.listActive(a.organizationId, 2, 2)).map((key) => key.id)).toEqual([first.id]);
    expect((await keys.listActive(b.organizationId, 10, 0)).map((key) => key.name)).toEqual(['other organization']);
    expect(await keys.countActive(a.organizationId)).toBe(3);
  });

  it("revokes a key of the organization once: false for another organization's key and for a key revoked already", async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const key = await keys.insert(a.organizationId, newKey(a.userId), autocommit(database));
    expect(await keys.revoke(b.organizationId, key.id, autocommit(database))).toBe(false);
    expect(await keys.listActive(a.organizationId, 10, 0)).toHaveLength(1);
    expect(await keys.revoke(a.organizationId, key.id, autocommit(database))).toBe(true);
    expect(await keys.revoke(a.organizationId, key.id, autocommit(database))).toBe(false);
    expect(await keys.listActive(a.organizationId, 10, 0)).toEqual([]);
  });

  it('finds presented keys by their hash, several asked for together, each only while it is live', async () => {
    const a = await newOrganization('a@example.test');
    const b = await newOrganization('b@example.test');
    const keyA = newKey(a.userId);
    const keyB = newKey(b.userId);
    const revoked = newKey(a.userId);
    const createdA = await keys.insert(a.organizationId, keyA, autocommit(database));
    const createdB = await keys.insert(b.organizationId, keyB, autocommit(database));
    const createdRevoked = await keys.insert(a.organizationId, revoked, autocommit(database));
    await keys.revoke(a.organizationId, createdRevoked.id, autocommit(database));

    const found = await Promise.all(
      [keyA.hex, keyB.hex, revoked.hex, randomBytes(32).toString('hex'), keyA.hex].map((hex) => keys.findLive(hex)),
    );
    expect(found.map((row) => row && [row.api_key_id, row.organization_id, row.email])).toEqual([
      [createdA.id, a.organizationId, 'a@example.test'],
      [createdB.id, b.organizationId, 'b@example.test'],
      undefined,
      undefined,
      [createdA.id, a.organizationId, 'a@example.test'],
    ]);
    expect(found[0]).toMatchObject({ user_id: a.userId, last_used_at: null, user_created_at: expect.any(Date), first_name: '' });

    // A revocation committed before a lookup is seen by it.
    await keys.revoke(b.organizationId, createdB.id, autocommit(database));
    expect(await keys.findLive(keyB.hex)).toBeUndefined();
  });

  it('records a use at most once a minute, and only for the organization of the key', async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const key = newKey(a.userId);
    const created = await keys.insert(a.organizationId, key, autocommit(database));
    await keys.touch(b.organizationId, created.id, autocommit(database));
    expect((await keys.findLive(key.hex))?.last_used_at).toBeNull();

    await keys.touch(a.organizationId, created.id, autocommit(database));
    const used = (await keys.findLive(key.hex))?.last_used_at;
    expect(used).toBeInstanceOf(Date);
    await keys.touch(a.organizationId, created.id, autocommit(database));
    expect((await keys.findLive(key.hex))?.last_used_at).toEqual(used);

    await dataSource.query(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [created.id]);
    await keys.touch(a.organizationId, created.id, autocommit(database));
    expect((await keys.findLive(key.hex))!.last_used_at!.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('says whether a key still works for an organization (the development account check)', async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const key = newKey(a.userId);
    const created = await keys.insert(a.organizationId, key, autocommit(database));
    expect(await keys.worksFor(a.organizationId, key.keyHash)).toBe(true);
    expect(await keys.worksFor(b.organizationId, key.keyHash)).toBe(false);
    await keys.revoke(a.organizationId, created.id, autocommit(database));
    expect(await keys.worksFor(a.organizationId, key.keyHash)).toBe(false);
  });

  it("holds a second creation's count until the first creation's transaction ends (the cap's lock)", async () => {
    const { organizationId, userId } = await newOrganization();
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = database.transaction(async (tx) => {
      await keys.lockOrganization(organizationId, tx);
      await keys.insert(organizationId, newKey(userId, 'first'), tx);
      firstLocked();
      await firstHolds;
    });
    await locked;
    let secondCounted: number | undefined;
    const second = database.transaction(async (tx) => {
      await keys.lockOrganization(organizationId, tx);
      secondCounted = await keys.countActive(organizationId, tx);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(secondCounted).toBeUndefined();
    releaseFirst();
    await Promise.all([first, second]);
    expect(secondCounted).toBe(1);
  });
});
