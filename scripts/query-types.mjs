// Generates the parameter and row types of every repository statement from the migrated schema
// (pgtyped: each `sql` tagged statement is described to a fresh database with the migrations applied),
// into `<name>.repository.types.ts` beside its repository. `--check` generates into a scratch copy and
// fails, naming the files, when the committed ones differ (stale against the migrations or the SQL).
//
//   npm run db:types          regenerate
//   npm run db:types -- --check
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensurePostgres, serviceUrls } from './services.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// QUERY_TYPES_SOURCE: another tree to check (the test of this script points it at a stale copy).
const SOURCE = path.resolve(process.env.QUERY_TYPES_SOURCE ?? path.join(ROOT, 'apps/api/src'));
const REPOSITORIES = '**/*.repository.ts';
const GENERATED_SUFFIX = '.repository.types.ts';
const check = process.argv.includes('--check');

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

async function withFreshDatabase(baseUrl, work) {
  const name = `trk_query_types_${process.pid}_${Date.now().toString(36)}`;
  const adminUrl = new URL(baseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    run(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/database/migrate.ts'], {
      ...process.env,
      DATABASE_URL: url.toString(),
      NODE_ENV: 'test',
    });
    return await work(url);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

function generate(url, sourceDir) {
  const config = {
    transforms: [{ mode: 'ts', include: REPOSITORIES, emitTemplate: '{{dir}}/{{name}}.types.ts' }],
    srcDir: sourceDir,
    failOnError: true,
    camelCaseColumnNames: false,
    // What the pool returns (data-source.ts parses int8 and int8[] to numbers); pgtyped's default is string.
    typesOverrides: { int8: 'number' },
    dbUrl: url.toString(),
  };
  const configFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'pgtyped-')), 'pgtyped.json');
  writeFileSync(configFile, JSON.stringify(config));
  run(path.join(ROOT, 'node_modules/.bin/pgtyped'), ['-c', configFile]);
  rmSync(path.dirname(configFile), { recursive: true });
}

/** Paths under `dir` (relative) whose name ends with `suffix`. */
function filesEndingWith(dir, suffix) {
  return readdirSync(dir, { recursive: true }).filter((file) => file.endsWith(suffix));
}

/** The file's text after pgtyped's first line (which names the source by its path from here). */
function withoutHeader(file) {
  return readFileSync(file, 'utf8').replace(/^.*\n/, '');
}

function generatedFiles(dir) {
  return new Set(filesEndingWith(dir, GENERATED_SUFFIX));
}

async function main() {
  const { databaseUrl } = serviceUrls();
  await ensurePostgres(databaseUrl, () => {});
  await withFreshDatabase(databaseUrl, async (url) => {
    if (!check) {
      for (const file of generatedFiles(SOURCE)) rmSync(path.join(SOURCE, file));
      generate(url, SOURCE);
      console.log(`Generated ${generatedFiles(SOURCE).size} files of query types from the migrated schema.`);
      return;
    }
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'query-types-'));
    try {
      for (const file of filesEndingWith(SOURCE, '.repository.ts')) {
        cpSync(path.join(SOURCE, file), path.join(scratch, file));
      }
      generate(url, scratch);
      const committed = generatedFiles(SOURCE);
      const fresh = generatedFiles(scratch);
      const stale = [...new Set([...committed, ...fresh])].filter(
        (file) =>
          !committed.has(file) ||
          !fresh.has(file) ||
          !existsSync(path.join(SOURCE, file)) ||
          withoutHeader(path.join(SOURCE, file)) !== withoutHeader(path.join(scratch, file)),
      );
      if (stale.length > 0) {
        console.error(`Query types are stale against the migrations or the SQL (run npm run db:types):\n  ${stale.sort().join('\n  ')}`);
        process.exitCode = 1;
      } else {
        console.log(`Query types are current (${fresh.size} files).`);
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
