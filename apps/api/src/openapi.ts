import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { addCommonErrors, ErrorBody, ValidationErrorBody } from './common/openapi/error-responses';
import { SCHEMA_EXAMPLES } from './common/openapi/examples';
import type { ServedRoute } from './common/errors/route-not-found';

const DESCRIPTION = `Live speech-translation rooms as an API.

An organization creates **rooms**; people join a room with a **join token** each, declaring their own
languages; a translator agent joins by itself as soon as the connected people hold two languages, and
leaves when fewer than two remain. Guests without an account join through **invite links**.

**Modes.** A room is \`mono\` (one device carries both languages: its tokens ask for two languages) or
\`dual\` (each speaker has their own device: one language per token). The mode is set by
\`streaming_mode\` at creation, or else by the first join token, and is fixed for the room's lifetime;
a later token that does not fit it is 409.

**Two languages per room.** A room translates between at most two languages: a token or an invite join
that would bring a third one into a room already holding two is 409.

**Billing.** Use is paid from prepaid credit (bought through Stripe Checkout, or granted by an operator).
Every connection is billed per started minute at the rate of its class (\`GET /v1/billing/credit\`), the
translator's too. A room cannot be created while the balance is at or below zero (402); a call in
progress is never cut off.

**Authentication.** \`Authorization: Bearer <credential>\`: an API key (\`trk_\` and 40 letters or
digits, created with \`POST /v1/api-keys\`) or a session JWT of the configured identity provider. Every
answer is scoped to the caller's organization. Only the invite preview and the invite join are public.

**The first API key.** \`POST /v1/api-keys\` needs a credential already, so an organization's first key
comes from outside the API. On a development machine \`npm run dev\` creates an organization with a key
and $100.00 of development credit and prints the key in its closing banner; \`npm run -s cli -- dev:account\`
prints it again (\`| jq -r .api_key\`). An operator creates an organization and its first key with
\`npm run -s cli -- org:create --name "My Org" --email me@example.com\` (JSON with \`api_key\`; in Docker:
\`docker compose exec api node dist/apps/api/apps/api/src/cli/main.js org:create …\`) and grants credit,
without Stripe, with \`npm run -s cli -- credit:grant --org <organization_id> --cents 10000\`.

**Errors.** Every error body is \`{"detail": "..."}\`, except 422: \`{"detail": [{loc, msg, type, input, ctx}]}\`,
one entry per violated field. A path served with other methods answers 405 with \`Allow\`
(components.responses.MethodNotAllowed); an unknown path answers 404 (components.responses.NotFound).`;

const BEARER_DESCRIPTION =
  'An API key: `trk_` followed by 40 characters of [0-9A-Za-z], e.g. `trk_3LrEljqchjyCBHxIfhTjUbZoUaObG2HsFoiv7Z15` ' +
  '(shown once, when created); or a session JWT of the identity provider the service is configured with.';

/** `RoomsController.create` → `roomsCreate`, for operations that name no operationId of their own. */
function operationId(controllerKey: string, methodKey: string): string {
  const controller = controllerKey.replace(/Controller$/, '');
  return `${controller[0].toLowerCase()}${controller.slice(1)}${methodKey[0].toUpperCase()}${methodKey.slice(1)}`;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

type Schema = { nullable?: boolean; enum?: unknown[]; properties?: Record<string, Schema>; items?: Schema } & Record<string, unknown>;

/** Nullable enums list null among their values, so strict JSON-Schema validators accept a real null. */
function nullInNullableEnums(schema: Schema): void {
  // a new array: Nest shares the decorator's (often a domain constant) between schemas
  if (schema.nullable && schema.enum && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  for (const property of Object.values(schema.properties ?? {})) nullInNullableEnums(property);
  if (schema.items) nullInNullableEnums(schema.items);
}

/** What decorators cannot say: shared error answers, any-JSON `input`, null in nullable enums, whole-object examples. */
export function finishDocument(document: OpenAPIObject): OpenAPIObject {
  const schemas = document.components!.schemas as Record<string, Schema>;
  const input = schemas.ValidationIssueSchema.properties!.input;
  for (const key of Object.keys(input)) if (key !== 'description' && key !== 'example') delete input[key];
  for (const schema of Object.values(schemas)) nullInNullableEnums(schema);
  for (const [name, example] of Object.entries(SCHEMA_EXAMPLES)) if (schemas[name]) schemas[name].example = example;
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, { security?: unknown[] }][]) {
      if (HTTP_METHODS.has(method)) operation.security ??= []; // a public operation says so, rather than by omission
    }
  }
  addCommonErrors(document);
  return document;
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Translation Room Service')
    .setDescription(DESCRIPTION)
    .setVersion('0.1.0')
    .setLicense('UNLICENSED', 'https://en.wikipedia.org/wiki/Proprietary_software')
    .addServer('/', 'The server that serves this document')
    .addServer('http://127.0.0.1:3000', '`npm run dev` on this machine')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'trk_ API key or JWT', description: BEARER_DESCRIPTION })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorBody, ValidationErrorBody],
    operationIdFactory: operationId,
  });
  return finishDocument(document);
}

/**
 * The routes `mountOpenApi` adds beside the controllers (those `SwaggerModule.setup` registers), all
 * GET: Swagger UI's page (also as `index.html`), its start script and licence, and the document (its
 * assets are static files, not routes).
 */
export const OPENAPI_ROUTES: readonly ServedRoute[] = [
  '/docs',
  '/docs/index.html',
  '/docs/LICENSE',
  '/docs/swagger-ui-init.js',
  '/docs/docs/swagger-ui-init.js', // SwaggerModule.setup serves the script under its path's last segment too
  '/openapi.json',
].map((path) => ({ method: 'GET', path }));

/** Serves the document at /openapi.json and Swagger UI at /docs. */
export function mountOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
}
