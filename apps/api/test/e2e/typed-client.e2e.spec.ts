import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../support/dev-run';
import { createOrganization, type TestOrganization } from '../support/factories';
import { startRoomsHarness, type RoomsHarness } from '../support/rooms-harness';

const CLIENT = path.join(ROOT, 'apps/api/test/typed-client/client.ts');

/** Type-checks and emits `files` of `dir` as a strict CommonJS program; returns the diagnostics. */
function compile(dir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((file) => path.join(dir, file)),
    {
      strict: true,
      noUncheckedIndexedAccess: true,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      typeRoots: [path.join(ROOT, 'node_modules/@types')],
      esModuleInterop: true,
      skipLibCheck: true,
      outDir: dir,
    },
  );
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  return diagnostics.map((d) => `${d.file ? path.basename(d.file.fileName) : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** Every cast, non-null assertion, `any` and ts-directive of a TypeScript source. */
function castsIn(source: string): string[] {
  const file = ts.createSourceFile('client.ts', source, ts.ScriptTarget.ES2022, true);
  const found: string[] = source.match(/@ts-\w+/g) ?? [];
  const visit = (node: ts.Node): void => {
    const isConst = ts.isAsExpression(node) && node.type.getText(file) === 'const';
    if ((ts.isAsExpression(node) && !isConst) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node))
      found.push(node.getText(file));
    if (node.kind === ts.SyntaxKind.AnyKeyword) found.push('any');
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', () => {
  let h: RoomsHarness;
  let org: TestOrganization;
  let dir: string;
  let baseUrl: string;

  beforeAll(async () => {
    h = await startRoomsHarness();
    org = await createOrganization(h.t);
    await h.t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(h.t.server.address() as AddressInfo).port}`;
    // under node_modules so that the client resolves openapi-fetch as a customer's project would
    mkdirSync(path.join(ROOT, 'node_modules/.cache'), { recursive: true });
    dir = mkdtempSync(path.join(ROOT, 'node_modules/.cache/typed-client-'));
    // the served document, through openapi-typescript's command line as a customer runs it
    writeFileSync(path.join(dir, 'openapi.json'), await (await fetch(`${baseUrl}/openapi.json`)).text());
    const generated = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), path.join(dir, 'openapi.json'), '-o', path.join(dir, 'schema.d.ts')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (generated.status !== 0) throw new Error(`openapi-typescript failed: ${generated.stderr}`);
    copyFileSync(CLIENT, path.join(dir, 'client.ts'));
  }, 60_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  it('compiles under strict without a cast, and every call does what the document says', async () => {
    const source = readFileSync(CLIENT, 'utf8');
    expect(castsIn(source)).toEqual([]);
    expect(compile(dir, ['client.ts'])).toEqual([]);

    // asynchronously: the API answers from this very process
    const run = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [path.join(dir, 'client.js')],
        { cwd: dir, env: { ...process.env, API_URL: baseUrl, API_KEY: org.apiKey }, timeout: 60_000 },
        (_error, stdout, stderr) => resolve({ stdout, stderr }),
      ),
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      email: org.email,
      languages: expect.any(Number),
      modes: ['dual', null],
      token: { identity: 'alice', mode: 'dual', expires: 'string' },
      tooManyLanguages: { status: 422, loc: [expect.objectContaining({ loc: ['body', 'languages'], type: 'too_long' })] },
      rooms: 2,
      status: 'created',
      preview: { required: 1, offered: true },
      guest: ['de'],
      revoked: 204,
      afterRevoke: { status: 404, detail: expect.any(String) },
      credit: 10_000,
      history: ['grant'],
      checkout: 503,
      usage: { buckets: expect.any(Number), granularity: 'day' },
      translator: false,
      transcript: { segments: 0, next_offset: null },
      glossaries: {
        created: { entry_count: 1, languages: ['de', 'en'], default: true },
        renamed: 'Brands',
        listed: 1,
        entry: true,
        entries: 2,
        csv: 'de,en,do_not_translate\r\nZehnmeter,Tenmeter,false\r\n,Acme,true\r\n',
        deletedEntry: 204,
        replaced: 1,
        room: [1, true],
        fetched: ['en', 'es'],
        deleted: 204,
      },
      keys: { prefix: 'trk_', listed: true, revoked: 204 },
      ended: 204,
      events: { listed: 0, ticket: 'est_' },
    });
  }, 120_000);

  it('refuses, at compile time, a call the document does not allow', () => {
    writeFileSync(
      path.join(dir, 'wrong.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './schema';",
        'const client = createClient<paths>({});',
        "void client.GET('/v1/usage/overview', { params: { query: { timezone: 'UTC' } } });", // the window is required
        "void client.POST('/v1/rooms', { body: { streaming_mode: 'stereo' } });", // not a mode
        "void client.GET('/v1/rooms/{room_id}', {});", // the path parameter is missing
      ].join('\n'),
    );
    const errors = compile(dir, ['wrong.ts']);
    expect(errors).toHaveLength(3);
  });
});
