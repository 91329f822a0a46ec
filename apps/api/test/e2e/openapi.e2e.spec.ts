import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import { createOrganization, type TestOrganization } from '../support/factories';
import { OpenApiAnswers } from '../support/openapi-answers';
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
  parameters?: { in: string }[];
  requestBody?: unknown;
}

/** Path, query or body: the inputs a 422 answers for (the Organization-Id header answers 404). */
const takesParameters = (operation: Operation) =>
  (operation.parameters ?? []).some((parameter) => parameter.in !== 'header') || operation.requestBody !== undefined;

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
  type Json = Record<string, unknown>;
  type Doc = {
    paths: Record<string, Record<string, Json & { responses: Record<string, Json>; requestBody?: Json }>>;
    components: { schemas: Record<string, Json>; responses: Record<string, Json>; securitySchemes: Record<string, Json> };
    servers: { url: string }[];
    info: { description: string };
  };
  const documentOf = async () => (await t.http().get('/openapi.json')).body as Doc;
  const operations = (doc: Doc) =>
    Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item).map(([method, op]) => ({ endpoint: `${method.toUpperCase()} ${p}`, op })),
    );

  it('describes every operation for a client generator: summary, description, a readable unique operationId', async () => {
    const doc = await documentOf();
    const report = operations(doc).map(({ endpoint, op }) => ({
      endpoint,
      summary: typeof op.summary === 'string' && op.summary.length > 0,
      description: typeof op.description === 'string' && op.description.length > 20,
      operationId: /^[a-z][A-Za-z]+$/.test(String(op.operationId)) && !String(op.operationId).includes('Controller'),
    }));
    expect(report).toEqual(report.map(({ endpoint }) => ({ endpoint, summary: true, description: true, operationId: true })));
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['createRoom', 'createJoinToken', 'previewInvite', 'joinInvite', 'getUsageOverview']));
  });

  it('documents every error answer with its body, and the answers every operation may give from one place', async () => {
    const doc = await documentOf();
    const resolve = (answer: Json) => (answer.$ref ? doc.components.responses[String(answer.$ref).split('/').pop()!] : answer);
    const missing = operations(doc).flatMap(({ endpoint, op }) =>
      Object.entries(op.responses)
        .filter(([status]) => Number(status) >= 400)
        .filter(([, answer]) => !(resolve(answer).content as Json | undefined)?.['application/json'])
        .map(([status]) => `${endpoint} ${status}`),
    );
    expect(missing).toEqual([]);
    const createRoom = doc.paths['/v1/rooms'].post.responses;
    expect(Object.keys(createRoom).sort()).toEqual(['201', '401', '402', '403', '404', '409', '413', '415', '422', '429', '503']);
    expect(createRoom['403']).toEqual({ $ref: '#/components/responses/Forbidden' });
    expect(createRoom['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(doc.components.responses.ServiceUnavailable.headers).toHaveProperty('Retry-After');
    expect(doc.components.responses.MethodNotAllowed.headers).toHaveProperty('Allow');
    // public operations say they need no credentials, and have no 401
    expect(doc.paths['/v1/invites/{invite_code}'].get.security).toEqual([]);
    expect(doc.paths['/v1/invites/{invite_code}'].get.responses).not.toHaveProperty('401');
  });

  it('types what strict validators and generators need', async () => {
    const doc = await documentOf();
    const schemas = doc.components.schemas;
    // nullable enums list null; no enum shared with a non-nullable one got it
    const nullableEnums: string[] = [];
    const walk = (where: string, schema: Json) => {
      if (schema.nullable && Array.isArray(schema.enum) && !schema.enum.includes(null)) nullableEnums.push(where);
      if (!schema.nullable && Array.isArray(schema.enum) && schema.enum.includes(null))
        nullableEnums.push(`${where} (null but not nullable)`);
      for (const [name, property] of Object.entries((schema.properties as Record<string, Json>) ?? {})) walk(`${where}.${name}`, property);
    };
    for (const [name, schema] of Object.entries(schemas)) walk(name, schema);
    expect(nullableEnums).toEqual([]);
    // date-times are strings of format date-time, every `*_at` field among them
    const dateTimes = Object.entries(schemas).flatMap(([name, schema]) =>
      Object.entries((schema.properties as Record<string, Json>) ?? {})
        .filter(
          ([field, property]) =>
            (field.endsWith('_at') || property.format === 'date-time') && !(property.type === 'string' && property.format === 'date-time'),
        )
        .map(([field]) => `${name}.${field}`),
    );
    expect(dateTimes).toEqual([]);
    expect(schemas.StreamingMode).toMatchObject({ type: 'string', enum: ['mono', 'dual'] });
    // the 422 input is any JSON value
    const input = (schemas.ValidationIssueSchema.properties as Record<string, Json>).input;
    expect(Object.keys(input).filter((k) => !['description', 'example'].includes(k))).toEqual([]);
    // every parameter has a type; the usage window bounds are date-times
    const untyped = operations(doc).flatMap(({ endpoint, op }) =>
      ((op.parameters as { name: string; schema: Json }[]) ?? [])
        .filter(({ schema }) => !schema.type && !schema.$ref && !schema.allOf)
        .map(({ name }) => `${endpoint} ${name}`),
    );
    expect(untyped).toEqual([]);
    const usage = doc.paths['/v1/usage/overview'].get.parameters as { name: string; schema: Json; required: boolean }[];
    expect(usage.find((p) => p.name === 'starts_after')).toMatchObject({ required: true, schema: { type: 'string', format: 'date-time' } });
    expect(usage.find((p) => p.name === 'timezone')?.schema.type).toBe('string');
    // a room needs no body; servers and the key format are stated
    expect(doc.paths['/v1/rooms'].post.requestBody).toMatchObject({ required: false });
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(doc.components.securitySchemes.bearer.bearerFormat).not.toBe('JWT');
    expect(doc.components.securitySchemes.bearer.description).toContain('trk_');
    // where the first key comes from, before any key exists
    expect(doc.info.description).toContain('**The first API key.**');
    expect(doc.info.description).toContain('npm run -s cli -- dev:account');
    expect(doc.info.description).toContain('npm run -s cli -- org:create');
  });

  it('has an example for every request body and success answer, each valid against its own schema', async () => {
    const doc = await documentOf();
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const named = (schema: Json | undefined): string[] => {
      if (!schema) return [];
      if (schema.$ref) return [String(schema.$ref).split('/').pop()!];
      if (schema.items) return named(schema.items as Json);
      return ((schema.allOf as Json[]) ?? [])
        .flatMap(named)
        .concat(Object.values((schema.properties as Record<string, Json>) ?? {}).flatMap(named));
    };
    const used = new Set(
      operations(doc).flatMap(({ op }) => [
        ...named(((op.requestBody?.content as Json)?.['application/json'] as Json)?.schema as Json),
        ...Object.entries(op.responses)
          .filter(([status]) => status.startsWith('2'))
          .flatMap(([, answer]) => named(((answer.content as Json)?.['application/json'] as Json)?.schema as Json)),
      ]),
    );
    const report = [...used].map((name) => {
      const schema = doc.components.schemas[name];
      const example = schema.example as Json | undefined;
      const validate = ajv.compile({ ...schema, components: doc.components });
      const unknownFields = Object.keys(example ?? {}).filter((key) => !Object.keys((schema.properties as Json) ?? {}).includes(key));
      return { name, example: example !== undefined, valid: example !== undefined && validate(example) && unknownFields.length === 0 };
    });
    expect(report).toEqual(report.map(({ name }) => ({ name, example: true, valid: true })));
  });

  it("passes Redocly's recommended rules with zero errors, offline", async () => {
    const doc = await documentOf();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} ${p.location[0]?.pointer ?? ''}`);
    expect(errors).toEqual([]);
  });

  it('catches an answer that drifts from the document (the check every e2e answer goes through)', async () => {
    const answers = new OpenApiAnswers((await t.http().get('/openapi.json')).body);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      ({
        status,
        body,
        text: JSON.stringify(body),
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      }) as unknown as Response;
    const credit = { credit_cents: 1, low_balance_cents: null, currency: 'usd', rates: [], min_topup_cents: 500, max_topup_cents: 1000 };
    expect(answers.problem('get', '/v1/billing/credit', answer(200, credit))).toBeNull();
    expect(answers.problem('get', '/v1/billing/credit', answer(200, { ...credit, credit_cents: '1' }))).toContain(
      '/credit_cents must be integer',
    );
    expect(answers.problem('get', '/v1/billing/credit', answer(500, { detail: 'x' }))).toContain('status 500 is not documented');
    expect(answers.problem('get', '/v1/rooms?limit=1', answer(418, { detail: 'x' }))).toContain('status 418 is not documented');
    expect(answers.problem('put', '/v1/rooms', answer(405, { detail: 'x' }, { allow: 'GET, HEAD, POST' }))).toBeNull();
    expect(answers.problem('put', '/v1/rooms', answer(405, { detail: 'x' }))).toContain('without Allow');
    expect(answers.problem('get', '/v1/nowhere', answer(404, { detail: 'There is no endpoint at this path.' }))).toBeNull();
    expect(answers.problem('get', '/v1/nowhere', answer(404, { message: 'x' }))).toContain("must have required property 'detail'");
  });
});
