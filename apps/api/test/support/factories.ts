import type { Role } from '@app/domain';
import { randomBytes } from 'node:crypto';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service';
import { LedgerService } from '../../src/modules/billing/ledger.service';
import type { TestApp } from './test-app';

export interface TestOrganization {
  organizationId: string;
  userId: string;
  email: string;
  apiKey: string;
  auth: { Authorization: string };
}

const unique = () => randomBytes(4).toString('hex');

/** A fresh organization with one user and one API key: tests never share rows. */
export async function createOrganization(
  t: TestApp,
  overrides: { name?: string; email?: string; creditCents?: number } = {},
): Promise<TestOrganization> {
  const [org] = (await t.db.query(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [overrides.name ?? `Org ${unique()}`])) as {
    id: string;
  }[];
  const email = overrides.email ?? `owner-${unique()}@example.test`;
  const [user] = (await t.db.query(
    `WITH u AS (INSERT INTO users (organization_id, email, first_name, last_name) VALUES ($1, $2, 'Ada', 'Lovelace') RETURNING id)
     INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'owner' FROM u RETURNING user_id AS id`,
    [org.id, email],
  )) as { id: string }[];
  const key = await t.app.get(ApiKeysService).createFor(org.id, user.id, 'factory key');
  const creditCents = overrides.creditCents ?? 10_000;
  if (creditCents !== 0) await grantCredit(t, org.id, creditCents);
  return { organizationId: org.id, userId: user.id, email, apiKey: key.key, auth: { Authorization: `Bearer ${key.key}` } };
}

/** A teammate: another user of the same organization, with a key of their own. */
export async function createTeammate(t: TestApp, org: TestOrganization, role: Role = 'owner'): Promise<TestOrganization> {
  const email = `mate-${unique()}@example.test`;
  const [user] = (await t.db.query(
    `WITH u AS (INSERT INTO users (organization_id, email) VALUES ($1, $2) RETURNING id)
     INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, $3 FROM u RETURNING user_id AS id`,
    [org.organizationId, email, role],
  )) as { id: string }[];
  const key = await t.app.get(ApiKeysService).createFor(org.organizationId, user.id, 'teammate key');
  return { organizationId: org.organizationId, userId: user.id, email, apiKey: key.key, auth: { Authorization: `Bearer ${key.key}` } };
}

/** Credit through the same ledger the operator CLI uses. */
export async function grantCredit(t: TestApp, organizationId: string, cents: number): Promise<void> {
  await t.app.get(LedgerService).grant({ organizationId, cents, note: 'test factory' });
}
