import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
const SOURCE = path.join(ROOT, 'apps/api/src');

function checkQueryTypes(source?: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['scripts/query-types.mjs', '--check'], {
    cwd: ROOT,
    env: { ...process.env, ...(source ? { QUERY_TYPES_SOURCE: source } : {}) },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The generated row and parameter types (npm run db:types) match the migrations and the SQL they were made from. */
describe('query types generated from the schema', () => {
  it('are current for every repository', () => {
    const { status, output } = checkQueryTypes();
    expect(output).toContain('Query types are current');
    expect(status).toBe(0);
  }, 120_000);

  it('are reported stale when a statement selects a column its committed types do not have', () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'stale-query-types-'));
    try {
      const module = 'modules/organizations';
      cpSync(path.join(SOURCE, module), path.join(copy, module), { recursive: true });
      const repository = path.join(copy, module, 'organizations.repository.ts');
      const sqlText = readFileSync(repository, 'utf8');
      writeFileSync(repository, sqlText.replace('RETURNING id`', 'RETURNING id, name`'));

      const { status, output } = checkQueryTypes(copy);
      expect(output).toContain('organizations.repository.types.ts');
      expect(status).toBe(1);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
