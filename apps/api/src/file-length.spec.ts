import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The file-length rule (docs/decisions.md "Naming", File length), over the whole repository's code:
 * product code of both apps and the libraries, test support, the bench and the scripts.
 */
const ROOT = join(__dirname, '../../..');
const SCANNED = ['apps', 'libs', 'bench', 'scripts'];
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|py|sql)$/;
/** Spec files (a list of cases around one subject) and pgtyped's generated types are exempt. */
const EXEMPT = /(\.spec\.ts|\.repository\.types\.ts)$/;
const MAX_LINES = 300;
/** How far into a file its header may say why it is longer. */
const HEADER_LINES = 15;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !EXEMPT.test(entry.name) ? [path] : [];
  });
}

/** The files over the limit whose header does not say why (it names the "300 lines" it is over). */
function longFilesWithoutReason(files: { path: string; text: string }[]): string[] {
  return files
    .filter(({ text }) => text.split('\n').length > MAX_LINES + 1)
    .filter(({ text }) => !/300 lines/.test(text.split('\n').slice(0, HEADER_LINES).join('\n')))
    .map(({ path }) => path);
}

describe('file length (docs/decisions.md "Naming")', () => {
  it(`every source file over ${MAX_LINES} lines says in its header why it is one file`, () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir))).map((path) => ({
      path: relative(ROOT, path),
      text: readFileSync(path, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(100);
    expect(longFilesWithoutReason(files)).toEqual([]);
  });

  it('finds a long file without a reason, and accepts one whose header gives it', () => {
    const body = Array.from({ length: 400 }, (_, i) => `const line${i} = ${i};`).join('\n');
    expect(
      longFilesWithoutReason([
        { path: 'long.ts', text: `// A module.\n${body}` },
        { path: 'explained.ts', text: `// Longer than ~300 lines on purpose: one state.\n${body}` },
        { path: 'short.ts', text: '// A module.\nexport const x = 1;\n' },
      ]),
    ).toEqual(['long.ts']);
  });
});
