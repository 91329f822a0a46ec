import { spawnSync } from 'node:child_process';
import path from 'node:path';
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
});
