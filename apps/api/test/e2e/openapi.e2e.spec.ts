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

  it('documents every interface endpoint the service implements, with its 422 body', async () => {
    const endpoints = specEndpoints();
    expect(endpoints.length).toBeGreaterThanOrEqual(17);
    const doc = (await t.http().get('/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const implemented: string[] = [];
    for (const { method, path: specPath } of endpoints) {
      const concrete = specPath.replace(/\{(\w+)\}/g, (_m, name: string) => SAMPLE[name] ?? 'x');
      const res = await t.http()[method as 'get'](concrete).set(org.auth);
      const unknownRoute = res.status === 404 && res.body?.detail === 'Not Found';
      if (unknownRoute) continue;
      implemented.push(`${method.toUpperCase()} ${specPath}`);
      const operation = doc.paths[specPath]?.[method];
      expect({ endpoint: `${method.toUpperCase()} ${specPath}`, documented: operation !== undefined }).toEqual({
        endpoint: `${method.toUpperCase()} ${specPath}`,
        documented: true,
      });
      expect(Object.keys(operation.responses)).toContain('422');
    }
    expect(implemented).toEqual(
      expect.arrayContaining(['POST /v1/api-keys', 'GET /v1/api-keys', 'GET /v1/users/me', 'GET /v1/supported-languages']),
    );
  });

  it('describes the validation error body and the page envelope', async () => {
    const doc = (await t.http().get('/openapi.json')).body as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    expect(Object.keys(doc.components.schemas.ValidationIssueSchema.properties).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    expect(doc.components.schemas.ErrorBody.properties).toHaveProperty('detail');
  });
});
