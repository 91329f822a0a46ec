import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** Organizations and their users on the real database, without the application. */
describe('OrganizationsRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let organizations: OrganizationsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    organizations = new OrganizationsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  const usersOf = async (organizationId: string) =>
    (await dataSource.query(`SELECT email, first_name, last_name FROM users WHERE organization_id = $1 ORDER BY created_at`, [
      organizationId,
    ])) as { email: string; first_name: string; last_name: string }[];

  it('creates an organization with its owner in one transaction', async () => {
    const { organizationId, userId } = await database.transaction(async (tx) => {
      const organizationId = await organizations.insert('Acme', tx);
      const userId = await organizations.insertUser(
        organizationId,
        { email: 'owner@acme.test', firstName: 'Ada', lastName: '' },
        'owner',
        tx,
      );
      return { organizationId, userId };
    });
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await organizations.exists(organizationId)).toBe(true);
    expect(await usersOf(organizationId)).toEqual([{ email: 'owner@acme.test', first_name: 'Ada', last_name: '' }]);
  });

  it('finds the organization a payment names, and none for an unknown id or a reference that is no uuid', async () => {
    const organizationId = await organizations.insert('Payer', autocommit(database));
    expect(await organizations.idByReference(organizationId)).toBe(organizationId);
    expect(await organizations.idByReference('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await organizations.idByReference('org_not_a_uuid')).toBeNull();
  });

  it('leaves no organization behind when its owner cannot be created', async () => {
    let organizationId = '';
    await expect(
      database.transaction(async (tx) => {
        organizationId = await organizations.insert('Half made', tx);
        await organizations.insertUser(organizationId, { email: 'same@acme.test', firstName: '', lastName: '' }, 'owner', tx);
        await organizations.insertUser(organizationId, { email: 'SAME@acme.test', firstName: '', lastName: '' }, 'owner', tx);
      }),
    ).rejects.toMatchObject({ code: '23505', constraint: 'users_organization_email' });
    expect(organizationId).not.toBe('');
    expect(await organizations.exists(organizationId)).toBe(false);
  });

  it('takes an email once per organization (any case), and the same email again in another organization', async () => {
    const first = await organizations.insert('First', autocommit(database));
    const second = await organizations.insert('Second', autocommit(database));
    await organizations.insertUser(first, { email: 'dup@example.test', firstName: '', lastName: '' }, 'owner', autocommit(database));
    await expect(
      organizations.insertUser(first, { email: 'Dup@Example.test', firstName: '', lastName: '' }, 'owner', autocommit(database)),
    ).rejects.toMatchObject({
      code: '23505',
    });
    await organizations.insertUser(second, { email: 'dup@example.test', firstName: '', lastName: '' }, 'owner', autocommit(database));
    expect(await usersOf(first)).toHaveLength(1);
    expect(await usersOf(second)).toHaveLength(1);
  });

  it('tells an unknown organization', async () => {
    expect(await organizations.exists('00000000-0000-4000-8000-000000000000')).toBe(false);
  });

  it("provisions a session's organization and user once: later sign-ins find them as first created", async () => {
    expect(await organizations.userBySubject('idp|alice')).toBeUndefined();
    const provision = (email: string, name: string) =>
      database.transaction(async (tx) => {
        const organizationId = await organizations.upsertExternal(name, 'org:team-1', tx);
        return organizations.upsertSessionUser(
          organizationId,
          { email, firstName: 'Alice', lastName: 'Liddell', imageUrl: 'https://img.test/a.png', authSubject: 'idp|alice' },
          tx,
        );
      });
    const created = await provision('alice@example.test', 'Team One');
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organization_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: 'alice@example.test',
      first_name: 'Alice',
      last_name: 'Liddell',
      image_url: 'https://img.test/a.png',
      created_at: expect.any(Date),
    });
    const again = await provision('changed@example.test', 'Renamed');
    expect(again).toEqual(created);
    expect(await organizations.userBySubject('idp|alice')).toEqual(created);
    const [org] = (await dataSource.query(`SELECT name FROM organizations WHERE id = $1`, [created.organization_id])) as { name: string }[];
    expect(org.name).toBe('Team One');
    // Another subject of the same identity-provider organization joins it.
    const teammate = await database.transaction(async (tx) =>
      organizations.upsertSessionUser(
        await organizations.upsertExternal('Team One', 'org:team-1', tx),
        { email: 'bob@example.test', firstName: '', lastName: '', imageUrl: '', authSubject: 'idp|bob' },
        tx,
      ),
    );
    expect(teammate.organization_id).toBe(created.organization_id);
    expect(teammate.id).not.toBe(created.id);
  });
});
