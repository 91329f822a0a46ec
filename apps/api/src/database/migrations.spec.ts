import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import ts from 'typescript';
import { SQL_FUNCTIONS } from './functions/sql-functions';
import { MIGRATIONS } from './migrations';

/**
 * A migration runs the same statements forever (docs/decisions.md "Migrations"): it holds its SQL
 * inline, reads no file, and has a down() that puts back what its up() found. The SQL functions'
 * source files are the readable copy of what the latest migration defining each one ran.
 */

const MIGRATIONS_DIR = path.join(__dirname, 'migrations');
const FUNCTIONS_DIR = path.join(__dirname, 'functions');

/**
 * Migrations whose change cannot be undone, each with the reason. None today: a migration listed here
 * must say what down() would lose (data that has no place in the earlier schema is not a reason: a
 * down() may refuse to run on such data, as OrderIndependentMetering's does).
 */
const IRREVERSIBLE: Record<string, string> = {};

interface MigrationSource {
  file: string;
  text: string;
}

function migrationSources(): MigrationSource[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^\d+-\w+\.ts$/.test(file))
    .sort()
    .map((file) => ({ file, text: readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8') }));
}

/** The code of a migration without its comments (which may name the files freely). */
function codeOf({ file, text }: MigrationSource): string {
  return ts.createPrinter({ removeComments: true }).printFile(ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true));
}

/** What in a migration's code reads a file, or takes text that can change after it shipped. */
function readsOfFiles(source: MigrationSource): string[] {
  const code = codeOf(source);
  const patterns: [string, RegExp][] = [
    ['imports a file-system module', /from\s+['"](node:)?fs(\/promises)?['"]|require\(\s*['"](node:)?fs/],
    ['reads a file', /\breadFile(Sync)?\b|\bcreateReadStream\b/],
    ['imports from ../functions', /from\s+['"]\.\.\/functions/],
    ['names a path beside itself', /__dirname|__filename|\.sql\b/],
  ];
  return patterns.filter(([, pattern]) => pattern.test(code)).map(([what]) => what);
}

/** Whether the class's down() holds no statement (comments do not count). */
function hasEmptyDown({ file, text }: MigrationSource): boolean {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  let empty: boolean | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isMethodDeclaration(node) && node.name.getText(source) === 'down') empty = !node.body || node.body.statements.length === 0;
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (empty === undefined) throw new Error(`${file} has no down()`);
  return empty;
}

/** The statements a migration's up() sends, in order, recorded without a database. */
async function statementsOf(migration: MigrationInterface): Promise<string[]> {
  const statements: string[] = [];
  const runner = {
    query: (sql: string) => {
      statements.push(sql);
      return Promise.resolve([]);
    },
  } as unknown as QueryRunner;
  await migration.up(runner);
  return statements;
}

const definesFunction = (name: string) => new RegExp(`CREATE\\s+(OR\\s+REPLACE\\s+)?FUNCTION\\s+${name}\\s*\\(`, 'i');

describe('migrations', () => {
  const sources = migrationSources();

  it('every migration file is in MIGRATIONS, in the order of its timestamp', () => {
    const classNames = sources.map(({ file }) => file.replace(/^(\d+)-(\w+)\.ts$/, '$2$1'));
    expect(MIGRATIONS.map((migration) => migration.name)).toEqual(classNames);
  });

  it('no migration reads a file', () => {
    const offenders = sources.map((source) => ({ file: source.file, reads: readsOfFiles(source) })).filter(({ reads }) => reads.length);
    expect(offenders).toEqual([]);
  });

  it('every migration has a down() that undoes it, unless listed as irreversible with its reason', () => {
    const empty = sources.filter((source) => !(source.file in IRREVERSIBLE) && hasEmptyDown(source)).map(({ file }) => file);
    expect(empty).toEqual([]);
    for (const file of Object.keys(IRREVERSIBLE)) expect(sources.map((source) => source.file)).toContain(file);
  });

  it('finds a migration that reads a file, and an empty down()', () => {
    const reading = {
      file: '1-Reading.ts',
      text: `import { readFileSync } from 'node:fs';\nimport { sqlFunction } from '../functions/sql-functions';\nconst f = __dirname + 'x.sql';`,
    };
    expect(
      readsOfFiles({ file: '1-Commented.ts', text: `// applies database/functions/x.sql, once read with readFileSync\nconst x = 1;` }),
    ).toEqual([]);
    expect(readsOfFiles(reading)).toEqual([
      'imports a file-system module',
      'reads a file',
      'imports from ../functions',
      'names a path beside itself',
    ]);
    const emptyDown = `export class A { async up(q) { await q.query('SELECT 1'); }\n async down() {\n // nothing\n } }`;
    expect(hasEmptyDown({ file: '2-Empty.ts', text: emptyDown })).toBe(true);
    expect(hasEmptyDown({ file: '3-Full.ts', text: emptyDown.replace('// nothing', "await q.query('SELECT 2');") })).toBe(false);
  });

  it('the SQL functions source files are those SQL_FUNCTIONS lists', () => {
    const files = readdirSync(FUNCTIONS_DIR)
      .filter((file) => file.endsWith('.sql'))
      .map((file) => file.replace(/\.sql$/, ''));
    expect(files.sort()).toEqual([...SQL_FUNCTIONS].sort());
  });

  it.each([...SQL_FUNCTIONS])(
    '%s: the latest migration that defines it ran exactly its source file (an edit of the file needs a new migration)',
    async (name) => {
      let latest: { migration: string; statement: string } | undefined;
      for (const Migration of MIGRATIONS) {
        for (const statement of await statementsOf(new Migration())) {
          if (definesFunction(name).test(statement)) latest = { migration: Migration.name, statement };
        }
      }
      const file = readFileSync(path.join(FUNCTIONS_DIR, `${name}.sql`), 'utf8');
      expect(latest).toBeDefined();
      expect({ migration: latest?.migration, statement: latest?.statement }).toEqual({ migration: latest?.migration, statement: file });
    },
  );
});
