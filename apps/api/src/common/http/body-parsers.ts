import { json, raw, text, type RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../config/app-config';
import { refusedEncodedBody } from './content-encoding';
import { RequestValidationError } from '../errors/validation-error';
import { reservedKeyIssues } from '../validation/reserved-keys';

/** Signed deliveries of LiveKit and Stripe: the only routes whose bodies may be large. */
const WEBHOOK_PATH = /^\/v1\/webhooks\//i;

const isWebhook = (request: IncomingMessage) => WEBHOOK_PATH.test(request.url ?? '');

/**
 * The routes that take a glossary's worth of entries (a JSON list, or CSV/TSV text): `POST
 * /v1/glossaries` and `PUT /v1/glossaries/{id}/entries`, up to 1 MiB.
 */
export const GLOSSARY_BODY_LIMIT_BYTES = 1024 * 1024;
const GLOSSARY_CREATE_PATH = /^\/v1\/glossaries\/?(?:\?.*)?$/i;
const GLOSSARY_ENTRIES_PATH = /^\/v1\/glossaries\/[^/?]+\/entries\/?(?:\?.*)?$/i;
const isGlossaryBulk = (request: IncomingMessage) =>
  (request.method === 'POST' && GLOSSARY_CREATE_PATH.test(request.url ?? '')) ||
  (request.method === 'PUT' && GLOSSARY_ENTRIES_PATH.test(request.url ?? ''));
const mediaTypeOf = (request: IncomingMessage) => (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
/** A CSV/TSV import (`PUT /v1/glossaries/{id}/entries`): its bytes are kept, to be decoded strictly as UTF-8. */
const GLOSSARY_TEXT_MEDIA_TYPES = new Set(['text/csv', 'text/tab-separated-values']);
const isGlossaryImport = (request: IncomingMessage) => request.method === 'PUT' && GLOSSARY_TEXT_MEDIA_TYPES.has(mediaTypeOf(request));
/** As body-parser decides it: a request has a body when it says how long it is or that it is chunked. */
const hasBody = (request: IncomingMessage) =>
  request.headers['transfer-encoding'] !== undefined || request.headers['content-length'] !== undefined;

/** Keeps the exact bytes received for the webhook signature checks (Nest's `rawBody: true` does the same). */
const keepRawBody = (request: IncomingMessage & { rawBody?: Buffer }, _response: unknown, buffer: Buffer) => {
  if (Buffer.isBuffer(buffer)) request.rawBody = buffer;
};

/** An error the exception filter answers like body-parser's own (status, `{"detail"}`). */
const bodyError = (status: number, type: string, message: string) => Object.assign(new Error(message), { status, type, expose: true });

/**
 * A JSON body with a `constructor`, `__proto__` or `prototype` key at any depth, on any route: 422 at
 * each such key, before a route, a guard or class-transformer sees it (like a body that is not JSON).
 */
const reservedKeysRefusal = (body: unknown) => {
  const issues = reservedKeyIssues(body, 'body');
  return issues.length > 0 ? new RequestValidationError(issues, true) : undefined;
};

/**
 * The body of a request, read in one middleware that picks its parser (one Express layer instead of
 * one per parser, and nothing at all for a request without a body). A compressed body is refused
 * (415). The limit is small everywhere but on the webhooks (the largest body of this API's own routes
 * is well under 1 KB): a body that declares more is refused with 413 at once and its connection
 * closed, without reading it; one that grows past the limit is cut there. A body that has not fully
 * arrived within `HTTP_BODY_TIMEOUT_MS` is answered 408 and its connection closed. Webhook bodies are
 * read as raw bytes whatever their type: their signature is checked before anything parses them.
 */
export function readBodies(config: AppConfig): RequestHandler {
  const { bodyLimitBytes, webhookBodyLimitBytes } = config.http;
  const always = () => true;
  const webhookBytes = raw({ limit: webhookBodyLimitBytes, type: always, verify: keepRawBody });
  // Not strict: any JSON value is parsed, so a body that is valid JSON but not an object gets model_attributes_type.
  const apiJson = json({ limit: bodyLimitBytes, strict: false, type: always, verify: keepRawBody });
  // Any other body is read as text rather than ignored: a body that is not JSON gets 422
  // model_attributes_type (as in FastAPI), never a room made from defaults.
  const otherText = text({ limit: bodyLimitBytes, type: always, verify: keepRawBody });
  const glossaryLimit = Math.max(bodyLimitBytes, GLOSSARY_BODY_LIMIT_BYTES);
  const glossaryJson = json({ limit: glossaryLimit, strict: false, type: always });
  const glossaryText = text({ limit: glossaryLimit, type: always, defaultCharset: 'utf-8' });
  // Not text(): it would turn bytes that are not UTF-8 into U+FFFD (the controller decodes them strictly).
  const glossaryBytes = raw({ limit: glossaryLimit, type: always });
  return (request, response, next) => {
    if (refusedEncodedBody(request, response)) return;
    if (!hasBody(request)) return next();
    const webhook = isWebhook(request);
    const glossary = !webhook && isGlossaryBulk(request);
    const limit = webhook ? webhookBodyLimitBytes : glossary ? glossaryLimit : bodyLimitBytes;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      response.setHeader('Connection', 'close');
      return next(bodyError(413, 'entity.too.large', 'request entity too large'));
    }
    // A zero-length body is no body: left undefined, it counts as an empty object.
    if (declared === 0) return next();
    let settled = false;
    const stalled = setTimeout(() => {
      settled = true;
      response.setHeader('Connection', 'close');
      next(bodyError(408, 'request.timeout', 'request body timed out'));
    }, config.timeouts.httpBodyMs);
    const done = (error?: unknown) => {
      if (settled) return; // answered 408 already; the parser ends when the connection closes
      settled = true;
      clearTimeout(stalled);
      next(error);
    };
    if (webhook) return webhookBytes(request, response, done);
    if (glossary) {
      if (isGlossaryImport(request)) return glossaryBytes(request, response, done);
      if (mediaTypeOf(request) !== 'application/json') return glossaryText(request, response, done);
      return glossaryJson(request, response, (error?: unknown) => done(error ?? reservedKeysRefusal(request.body)));
    }
    if (mediaTypeOf(request) === 'application/json') {
      return apiJson(request, response, (error?: unknown) => done(error ?? reservedKeysRefusal(request.body)));
    }
    return otherText(request, response, done);
  };
}
