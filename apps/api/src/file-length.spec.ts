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

/** The sentence a longer file's header opens its reason with (docs/decisions.md "Naming", File length). */
const REASON_OPENING = 'Longer than ~300 lines on purpose:';
/** A reason says what holds the file together: a few words, not a label. */
const MIN_REASON_WORDS = 8;

/** The header's comment text without its markers (`//`, `/*`, `*`, `#`, `--`); a line of code ends a sentence. */
function headerText(text: string): string {
  const COMMENT = /^\s*(\/\/+|\/\*+|\*+\/?|#+|--)\s?/;
  return text
    .split('\n')
    .slice(0, HEADER_LINES)
    .map((line) => (COMMENT.test(line) ? line.replace(COMMENT, '').trim() : '.'))
    .join(' ');
}

/** The reason the header gives after the opening, up to the end of its sentence; null without the opening. */
function statedReason(text: string): string | null {
  const header = headerText(text);
  const at = header.indexOf(REASON_OPENING);
  if (at < 0) return null;
  const rest = header.slice(at + REASON_OPENING.length);
  return rest.split(/\.(?:\s|$)/)[0]!.trim();
}

/** The files over the limit whose header does not give a reason of at least MIN_REASON_WORDS words. */
function longFilesWithoutReason(files: { path: string; text: string }[]): string[] {
  return files
    .filter(({ text }) => text.split('\n').length > MAX_LINES + 1)
    .filter(({ text }) => (statedReason(text)?.split(/\s+/).filter(Boolean).length ?? 0) < MIN_REASON_WORDS)
    .map(({ path }) => path);
}

describe('file length (docs/decisions.md "Naming")', () => {
  it(`every source file over ${MAX_LINES} lines gives in its header the reason it is one file`, () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir))).map((path) => ({
      path: relative(ROOT, path),
      text: readFileSync(path, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(100);
    expect(longFilesWithoutReason(files)).toEqual([]);
  });

  it('finds a long file without a reason, and accepts one whose header gives it', () => {
    const body = Array.from({ length: 400 }, (_, i) => `const line${i} = ${i};`).join('\n');
    const reason = 'the parser and its error messages work on one cursor, so a split passes it around.';
    expect(
      longFilesWithoutReason([
        { path: 'long.ts', text: `// A module.\n${body}` },
        { path: 'explained.ts', text: `// A parser.\n// Longer than ~300 lines on purpose: ${reason}\n${body}` },
        {
          path: 'block.ts',
          text: `/**\n * A parser. Longer than ~300 lines on purpose: the parser and its\n * error messages work on one cursor, so a split passes it around.\n */\n${body}`,
        },
        { path: 'short.ts', text: '// A module.\nexport const x = 1;\n' },
      ]),
    ).toEqual(['long.ts']);
  });

  it('the words "300 lines" alone, or the opening without a reason, do not satisfy it', () => {
    const body = Array.from({ length: 400 }, (_, i) => `const line${i} = ${i};`).join('\n');
    expect(
      longFilesWithoutReason([
        { path: 'named.ts', text: `// A little over 300 lines.\n${body}` },
        { path: 'opening-only.ts', text: `// Longer than ~300 lines on purpose.\n${body}` },
        { path: 'empty-reason.ts', text: `// Longer than ~300 lines on purpose:\n${body}` },
        { path: 'label.ts', text: `// Longer than ~300 lines on purpose: one state. It is a parser with many parts.\n${body}` },
        {
          path: 'too-late.ts',
          text: `${'// A module.\n'.repeat(HEADER_LINES)}// Longer than ~300 lines on purpose: the parser and its errors work on one cursor.\n${body}`,
        },
      ]),
    ).toEqual(['named.ts', 'opening-only.ts', 'empty-reason.ts', 'label.ts', 'too-late.ts']);
  });
});
