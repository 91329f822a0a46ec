import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createOrganization, type TestOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '../../../..');

function cli(t: TestApp, ...args: string[]) {
  return spawnSync(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/cli/main.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: t.config.databaseUrl },
  });
}

describe('operator CLI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('org:create prints one JSON object whose api_key works against the API', async () => {
    const result = cli(
      t,
      'org:create',
      '--name',
      'Globex',
      '--email',
      'hank@globex.test',
      '--first-name',
      'Hank',
      '--last-name',
      'Scorpio',
    );
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]) as { organization_id: string; user_id: string; api_key: string };
    expect(Object.keys(out).sort()).toEqual(['api_key', 'organization_id', 'user_id']);
    const me = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `Bearer ${out.api_key}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: out.user_id, email: 'hank@globex.test', first_name: 'Hank', last_name: 'Scorpio' });
  }, 60_000);

  it('refuses a missing --email with usage on stderr, exit code 2, and writes nothing', async () => {
    const before = (await t.db.query(`SELECT count(*)::int AS n FROM organizations`)) as { n: number }[];
    const result = cli(t, 'org:create', '--name', 'Nameless');
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--email is required');
    const after = (await t.db.query(`SELECT count(*)::int AS n FROM organizations`)) as { n: number }[];
    expect(after[0].n).toBe(before[0].n);
  }, 60_000);

  describe('credit:grant', () => {
    interface Line {
      kind: string;
      occurred_at: string;
      delta_cents: number;
      currency: string;
      provider_reference: string | null;
    }
    const balance = async (org: TestOrganization): Promise<number> => {
      const res = await t.http().get('/v1/billing/credit').set(org.auth);
      expect(res.status).toBe(200);
      return res.body.credit_cents as number;
    };
    const lines = async (org: TestOrganization): Promise<Line[]> => {
      const res = await t.http().get('/v1/billing/history?limit=200').set(org.auth);
      expect(res.status).toBe(200);
      return res.body.items as Line[];
    };
    const printedLine = (result: ReturnType<typeof cli>): Line => {
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      const out = result.stdout.trim().split('\n');
      expect(out).toHaveLength(1);
      return JSON.parse(out[0]) as Line;
    };

    it('prints the new history line as one JSON object; the balance and the history show it at once', async () => {
      const org = await createOrganization(t);
      expect(await balance(org)).toBe(10_000);
      const before = await lines(org);
      const started = Date.now();

      const line = printedLine(cli(t, 'credit:grant', '--org', org.organizationId, '--cents', '2500', '--note', 'goodwill'));
      expect(line).toEqual({
        kind: 'grant',
        occurred_at: expect.any(String),
        delta_cents: 2500,
        currency: 'usd',
        provider_reference: null,
      });
      expect(new Date(line.occurred_at).toISOString()).toBe(line.occurred_at);
      expect(new Date(line.occurred_at).getTime()).toBeGreaterThanOrEqual(started - 1000);
      expect(await balance(org)).toBe(12_500);
      const after = await lines(org);
      expect(after).toHaveLength(before.length + 1);
      expect(after[0]).toEqual(line);

      // A negative grant is a correction: a new line, the balance down by as much.
      const correction = printedLine(cli(t, 'credit:grant', '--org', org.organizationId, '--cents', '-700'));
      expect(correction).toMatchObject({ kind: 'grant', delta_cents: -700, currency: 'usd', provider_reference: null });
      expect(await balance(org)).toBe(11_800);
      expect((await lines(org))[0]).toEqual(correction);
      expect((await lines(org)).reduce((sum, l) => sum + l.delta_cents, 0)).toBe(11_800);
    }, 60_000);

    it('refuses --cents 0 with usage on stderr, exit code 2, and changes nothing', async () => {
      const org = await createOrganization(t);
      const before = await lines(org);
      for (const cents of ['0', '-0', '00']) {
        const result = cli(t, 'credit:grant', '--org', org.organizationId, `--cents=${cents}`);
        expect({ cents, status: result.status, stdout: result.stdout }).toEqual({ cents, status: 2, stdout: '' });
        expect(result.stderr).toContain('--cents');
      }
      expect(await balance(org)).toBe(10_000);
      expect(await lines(org)).toEqual(before);
    }, 60_000);
  });
});
