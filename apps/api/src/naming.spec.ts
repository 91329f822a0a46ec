import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import * as ts from 'typescript';

/** The closed list of roles (docs/decisions.md "Naming"): an injected class ends in one of them. */
const ROLES = [
  'Controller',
  'Service',
  'Repository',
  'Worker',
  'Gateway',
  'Guard',
  'Pipe',
  'Interceptor',
  'Authenticator',
  'Publisher',
  'Scheduler',
  'Store',
  'Registry',
  'Client',
  'Server',
  'Module',
] as const;

/** The role a decorator allows: `@Controller()` and `@Module()` name theirs, `@Injectable()` any other. */
const ALLOWED: Record<string, readonly string[]> = {
  Controller: ['Controller'],
  Module: ['Module'],
  Injectable: ROLES.filter((role) => role !== 'Controller' && role !== 'Module'),
};

const SRC = __dirname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

interface DecoratedClass {
  file: string;
  name: string;
  decorator: string;
}

function decoratedClasses(file: string): DecoratedClass[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: DecoratedClass[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      for (const decorator of ts.getDecorators(node) ?? []) {
        const call = decorator.expression;
        if (ts.isCallExpression(call) && ts.isIdentifier(call.expression) && call.expression.text in ALLOWED) {
          found.push({ file, name: node.name.text, decorator: call.expression.text });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What is wrong with a class's name or its file's, or nothing. */
function namingProblem({ file, name, decorator }: DecoratedClass): string | undefined {
  const where = `${relative(SRC, file)}: ${name} (@${decorator})`;
  const role = ALLOWED[decorator].find((candidate) => name.endsWith(candidate) && name.length > candidate.length);
  if (!role) return `${where} ends in none of its roles (${ALLOWED[decorator].join(', ')})`;
  const stem = name.slice(0, -role.length);
  const expected = `.${role.toLowerCase()}.ts`;
  const fileName = basename(file);
  // The name part is the class's, kebab-cased; compared without hyphens, so `livekit` spells `LiveKit`.
  if (!fileName.endsWith(expected) || fileName.slice(0, -expected.length).replace(/-/g, '') !== stem.toLowerCase()) {
    return `${where} is not in <name>${expected} (its name kebab-cased, e.g. ${stem.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}${expected})`;
  }
  return undefined;
}

describe('Naming (docs/decisions.md "Naming")', () => {
  const files = sourceFiles(SRC);
  const classes = files.flatMap(decoratedClasses);

  it('finds the injected classes', () => {
    expect(classes.filter((found) => found.decorator === 'Injectable').length).toBeGreaterThan(50);
  });

  it('every injected class ends in its role and lives in <name>.<role>.ts', () => {
    expect(classes.map(namingProblem).filter(Boolean)).toEqual([]);
  });

  it('every unit spec beside a role file is named <name>.<role>.spec.ts', () => {
    const roleFiles = new Set(classes.map((found) => found.file));
    const stale = [...roleFiles].flatMap((file) => {
      const name = basename(file).replace(/\.[a-z]+\.ts$/, '');
      return readdirSync(dirname(file)).includes(`${name}.spec.ts`)
        ? [`${relative(SRC, join(dirname(file), `${name}.spec.ts`))} (beside ${basename(file)})`]
        : [];
    });
    expect(stale).toEqual([]);
  });

  it('fails on a class without its role, and on a file not named after its class', () => {
    expect(namingProblem({ file: join(SRC, 'billing/ledger.ts'), name: 'Ledger', decorator: 'Injectable' })).toMatch(/ends in none/);
    expect(namingProblem({ file: join(SRC, 'billing/ledger.ts'), name: 'LedgerService', decorator: 'Injectable' })).toMatch(
      /ledger\.service\.ts/,
    );
    expect(namingProblem({ file: join(SRC, 'a/b.controller.ts'), name: 'BService', decorator: 'Injectable' })).toMatch(/b\.service\.ts/);
    expect(namingProblem({ file: join(SRC, 'a/b.controller.ts'), name: 'BController', decorator: 'Injectable' })).toMatch(/ends in none/);
    expect(namingProblem({ file: join(SRC, 'a/live-kit.gateway.ts'), name: 'LiveKitGateway', decorator: 'Injectable' })).toBeUndefined();
  });
});
