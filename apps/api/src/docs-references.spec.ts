import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The reference docs name only what exists (docs/decisions.md "How we work"): every backticked path of a
 * repository file in the README and the reference pages of docs/ (all but the history) is a file of the tree, and every backticked
 * `ClassName` / `ClassName.method` of one of our roles is declared in the source, with that method.
 * Pure file reads: the tree is listed once, each class's file read once.
 */
const ROOT = join(__dirname, '../../..');
const DOCS = ['README.md', 'docs/decisions.md', 'docs/performance.md', 'docs/translator.md', 'docs/tests.md', 'docs/dependencies.md'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git', '.data', '.scratch']);
/** A path that is one of ours: under a top folder of the repository, or a code file named by its tail. */
const ROOTED = /^(apps|libs|bench|scripts|docs)\//;
const CODE_FILE = /\.(ts|mts|cts|mjs|cjs|sql|py)$/;
/** The roles whose classes the docs name (docs/decisions.md "Naming"), and our other class suffixes. */
const CLASS =
  /^([A-Z][A-Za-z0-9]*(?:Service|Repository|Controller|Worker|Module|Guard|Interceptor|Publisher|Gateway|Scheduler|Client|Authenticator|Store|Registry|Server|Pipe|Filter))(?:\.([A-Za-z_$][\w$]*(?:\/[A-Za-z_$][\w$]*)*))?(?:\(.*\))?$/;

export interface Tree {
  files: string[];
  read(path: string): string;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRS.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : [relative(ROOT, path)];
  });
}

/** `<name>`, `*` and `…` stand for any part of one path segment. */
function pathPattern(path: string): RegExp {
  const escaped = path
    .split(/(<[^>]*>|\*|…)/)
    .map((part, i) => (i % 2 === 1 ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return ROOTED.test(path) ? new RegExp(`^${escaped}$`) : new RegExp(`(^|/)${escaped}$`);
}

/** The backticked spans of a markdown text (fenced blocks left out: they are commands, not names). */
export function backticked(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
}

/** Spans that name a repository file: rooted under a top folder, or a code file named by its tail. */
export function filePaths(spans: string[]): string[] {
  return spans.filter((span) => !/[\s,;:]/.test(span) && !/^[./$~]/.test(span) && (ROOTED.test(span) || CODE_FILE.test(span)));
}

/** What a doc names that the tree does not hold: paths, classes, methods. */
export function danglingNames(markdown: string, tree: Tree): string[] {
  const spans = backticked(markdown);
  const missing = new Set<string>();
  for (const path of filePaths(spans)) {
    // A file, or a folder: some file lies under it.
    const pattern = pathPattern(path.replace(/\/$/, ''));
    const found = tree.files.some((file) => file.split('/').some((_, i, parts) => pattern.test(parts.slice(0, i + 1).join('/'))));
    if (!found) missing.add(`file ${path}`);
  }
  for (const span of spans) {
    const match = CLASS.exec(span);
    if (!match) continue;
    const [, className, methods] = match;
    const declared = classSource(className!, tree);
    if (declared === null) {
      missing.add(`class ${className}`);
      continue;
    }
    for (const method of methods?.split('/') ?? []) {
      if (!hasMember(declared, method, tree)) missing.add(`method ${className}.${method}`);
    }
  }
  return [...missing];
}

type Declared = { body: string; base: string | null } | 'external' | 'named' | null;
const classSources = new WeakMap<Tree, Map<string, Declared>>();

/**
 * Where the class is: its body (and the class it extends) in our source; 'external' when it is imported from a
 * package; 'named' when our code names it in a string (a protocol's service, e.g. LiveKit's `RoomService`); else null.
 */
function classSource(name: string, tree: Tree): Declared {
  const known = classSources.get(tree) ?? new Map<string, Declared>();
  classSources.set(tree, known);
  if (known.has(name)) return known.get(name)!;
  const declaration = new RegExp(
    `^(?:export\\s+)?(?:default\\s+)?(?:abstract\\s+)?class ${name}\\b(?:<[^>]*>)?(?:\\s+extends\\s+(\\w+))?`,
    'm',
  );
  const imported = new RegExp(`import\\s*(?:type\\s*)?\\{[^}]*\\b${name}\\b[^}]*\\}\\s*from\\s*'(?!@app\\/)[^.'][^']*'`);
  const named = new RegExp(`['"\`]${name}['"\`]`);
  let found: Declared = null;
  for (const file of tree.files.filter((f) => f.endsWith('.ts') && !f.endsWith('.types.ts'))) {
    const text = tree.read(file);
    const match = declaration.exec(text);
    if (match) {
      const end = text.indexOf('\n}', match.index);
      found = { body: text.slice(match.index, end < 0 ? undefined : end + 2), base: match[1] ?? null };
      break;
    }
    if (found === null && imported.test(text)) found = 'external';
    if (found === null && named.test(text)) found = 'named';
  }
  known.set(name, found);
  return found;
}

/** A member of the class or of a class it extends in our source. */
function hasMember(declared: Declared, member: string, tree: Tree): boolean {
  if (declared === 'external') return true;
  if (declared === null || declared === 'named') return false;
  const modifiers = '(?:(?:public|private|protected|static|async|readonly|override|get|set)\\s+)*';
  if (new RegExp(`^\\s*${modifiers}${member.replace(/\$/g, '\\$')}\\s*[(<=:;?!]`, 'm').test(declared.body)) return true;
  return declared.base !== null && hasMember(classSource(declared.base, tree), member, tree);
}

function repositoryTree(): Tree {
  const cache = new Map<string, string>();
  return {
    files: listFiles(ROOT),
    read: (path) => {
      if (!cache.has(path)) cache.set(path, readFileSync(join(ROOT, path), 'utf8'));
      return cache.get(path)!;
    },
  };
}

describe('names in the reference docs (docs/decisions.md "How we work")', () => {
  const tree = repositoryTree();

  it.each(DOCS)('every file, class and method %s names exists', (doc) => {
    expect(danglingNames(readFileSync(join(ROOT, doc), 'utf8'), tree)).toEqual([]);
  });

  it('finds a wrong path, a wrong class and a method on the wrong class, and accepts the right ones', () => {
    const fake: Tree = {
      files: [
        'apps/api/src/modules/rooms/rooms.repository.ts',
        'apps/api/src/modules/rooms/room-tokens.repository.ts',
        'libs/domain/src/billing.ts',
      ],
      read: (path) =>
        ({
          'apps/api/src/modules/rooms/rooms.repository.ts':
            "import { Injectable } from '@nestjs/common';\nexport class RoomsRepository {\n  async lockAdmissions(id: string) {}\n}\n",
          'apps/api/src/modules/rooms/room-tokens.repository.ts':
            'export class RoomTokensRepository {\n  async admitTokenShared() {}\n  private readonly batches = 1;\n}\n',
        })[path] ?? '',
    };
    const doc = [
      '`apps/api/src/modules/rooms/rooms.repository.ts`, `billing.ts`, `apps/api/src/modules/rooms/*.repository.ts`',
      '`RoomsRepository.lockAdmissions`, `RoomTokensRepository.admitTokenShared/batches`, `Injectable`',
      '`apps/api/src/modules/rooms/room.gone.ts`, `gone.sql`, `RoomsRepository.admitTokenShared`, `MissingService`',
      '```\n`apps/in/a/fence.ts`\n```',
    ].join('\n');
    expect(danglingNames(doc, fake)).toEqual([
      'file apps/api/src/modules/rooms/room.gone.ts',
      'file gone.sql',
      'method RoomsRepository.admitTokenShared',
      'class MissingService',
    ]);
  });
});
