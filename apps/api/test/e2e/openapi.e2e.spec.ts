import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createOrganization, type TestOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

const INTERFACE = path.resolve(__dirname, '../../../../../shared/spec/interface.md');

/** Every `METHOD /v1/...` the interface names, as OpenAPI paths (`{param}`). */
function specEndpoints(): { method: string; path: string }[] {
  const text = readFileSync(INTERFACE, 'utf8');
  const found = new Map<string, { method: string; path: string }>();
  for (const match of text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/v1\/[A-Za-z0-9_\-/{}]+)/g)) {
    const endpoint = { method: match[1].toLowerCase(), path: match[2].replace(/\/$/, '') };
    found.set(`${endpoint.method} ${endpoint.path}`, endpoint);
  }
  return [...found.values()];
}

interface Operation {
  responses: Record<string, unknown>;
  parameters?: unknown[];
  requestBody?: unknown;
}

const takesParameters = (operation: Operation) => (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined;

const SAMPLE: Record<string, string> = {
  room_id: '00000000-0000-4000-8000-000000000000',
  room_name: 'no-such-room',
  invite_code: 'no-such-code',
};

describe('OpenAPI document', () => {
  let t: TestApp;
  let org: TestOrganization;
  beforeAll(async () => {
    t = await startTestApp();
    org = await createOrganization(t);
  });
  afterAll(async () => t.close());

  it('is served at /openapi.json and Swagger UI at /docs', async () => {
    const doc = await t.http().get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    const ui = await t.http().get('/docs/');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('documents every endpoint of the interface, with its method and its 422 body', async () => {
    const endpoints = specEndpoints();
    expect(endpoints.length).toBeGreaterThanOrEqual(17);
    expect(endpoints.map(({ method, path: p }) => `${method.toUpperCase()} ${p}`)).toEqual(
      expect.arrayContaining([
        'GET /v1/billing/history',
        'POST /v1/rooms/{room_name}/token',
        'POST /v1/invites/{invite_code}/join',
        'DELETE /v1/rooms/{room_id}',
        'DELETE /v1/rooms/{room_id}/invites',
      ]),
    );
    const doc = (await t.http().get('/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const normalize = (p: string) => p.replace(/\{[^}]*\}/g, '{}');
    const documented = new Map<string, Operation>();
    for (const [docPath, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) documented.set(`${method} ${normalize(docPath)}`, operation);
    }
    const report = endpoints.map(({ method, path: specPath }) => {
      const operation = documented.get(`${method} ${normalize(specPath)}`);
      return {
        endpoint: `${method.toUpperCase()} ${specPath}`,
        documented: operation !== undefined,
        // 422 exactly where the endpoint takes parameters (path, query or body), as the interface says
        documents422: operation !== undefined && Object.keys(operation.responses).includes('422') === takesParameters(operation),
      };
    });
    expect(report).toEqual(report.map(({ endpoint }) => ({ endpoint, documented: true, documents422: true })));
  });

  it('types every integer input as integer: no parameter or request-body field is a float', async () => {
    type Schema = { type?: string; properties?: Record<string, Schema>; $ref?: string };
    const doc = (await t.http().get('/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>
      >;
      components: { schemas: Record<string, Schema> };
    };
    const floats: string[] = [];
    for (const [docPath, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const p of operation.parameters ?? []) if (p.schema.type === 'number') floats.push(`${method} ${docPath} ${p.name}`);
        for (const { schema } of Object.values(operation.requestBody?.content ?? {})) {
          const body = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
          for (const [name, field] of Object.entries(body.properties ?? {}))
            if (field.type === 'number') floats.push(`${method} ${docPath} body.${name}`);
        }
      }
    }
    expect(floats).toEqual([]);
    const mint = doc.components.schemas.MintInviteDto.properties!;
    expect([mint.expires_in_seconds.type, mint.max_uses.type]).toEqual(['integer', 'integer']);
  });

  it('serves every endpoint of the interface (none answers as an unknown route)', async () => {
    const served = [];
    for (const { method, path: specPath } of specEndpoints()) {
      const concrete = specPath.replace(/\{(\w+)\}/g, (_m, name: string) => SAMPLE[name] ?? 'x');
      const res = await t.http()[method as 'get'](concrete).set(org.auth);
      served.push({
        endpoint: `${method.toUpperCase()} ${specPath}`,
        unknownRoute: res.status === 404 && res.body?.detail === 'There is no endpoint at this path.',
      });
    }
    expect(served).toEqual(served.map(({ endpoint }) => ({ endpoint, unknownRoute: false })));
  });

  it('describes the validation error body and the page envelope', async () => {
    const doc = (await t.http().get('/openapi.json')).body as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    expect(Object.keys(doc.components.schemas.ValidationIssueSchema.properties).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    expect(doc.components.schemas.ErrorBody.properties).toHaveProperty('detail');
  });
});
