import { json, text, type RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../config/app-config';
import { refusedEncodedBody } from './content-encoding';

/** Signed deliveries of LiveKit and Stripe: the only routes whose bodies may be large. */
const WEBHOOK_PATH = /^\/v1\/webhooks\//i;

const isWebhook = (request: IncomingMessage) => WEBHOOK_PATH.test(request.url ?? '');
const mediaTypeOf = (request: IncomingMessage) => (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
/** As body-parser decides it: a request has a body when it says how long it is or that it is chunked. */
const hasBody = (request: IncomingMessage) =>
  request.headers['transfer-encoding'] !== undefined || request.headers['content-length'] !== undefined;

/** Keeps the exact bytes received for the webhook signature checks (Nest's `rawBody: true` does the same). */
const keepRawBody = (request: IncomingMessage & { rawBody?: Buffer }, _response: unknown, buffer: Buffer) => {
  if (Buffer.isBuffer(buffer)) request.rawBody = buffer;
};

/**
 * The body of a request, read in one middleware that picks its parser (one Express layer instead of
 * one per parser, and nothing at all for a request without a body). A compressed body is refused
 * (415); the limit is small everywhere but on the webhooks (the largest body of this API's own routes
 * is well under 1 KB), so an oversized body is refused with 413 before anything reads it.
 */
export function readBodies(config: AppConfig): RequestHandler {
  const { bodyLimitBytes, webhookBodyLimitBytes } = config.http;
  const always = () => true;
  // Not strict: any JSON value is parsed, so a body that is valid JSON but not an object gets model_attributes_type.
  const webhookJson = json({ limit: webhookBodyLimitBytes, strict: false, type: always, verify: keepRawBody });
  const apiJson = json({ limit: bodyLimitBytes, strict: false, type: always, verify: keepRawBody });
  // LiveKit posts its webhooks as application/webhook+json; keep them as text for the signature check.
  const webhookText = text({ limit: webhookBodyLimitBytes, type: always, verify: keepRawBody });
  // Any other body is read as text rather than ignored: a body that is not JSON gets 422
  // model_attributes_type (as in FastAPI), never a room made from defaults.
  const otherText = text({ limit: bodyLimitBytes, type: always, verify: keepRawBody });
  return (request, response, next) => {
    if (refusedEncodedBody(request, response)) return;
    if (!hasBody(request)) return next();
    const mediaType = mediaTypeOf(request);
    const webhook = isWebhook(request);
    if (mediaType === 'application/json') return (webhook ? webhookJson : apiJson)(request, response, next);
    if (webhook && mediaType === 'application/webhook+json') return webhookText(request, response, next);
    // A zero-length body is no body: left undefined, it counts as an empty object.
    if (request.headers['content-length'] !== '0') return otherText(request, response, next);
    next();
  };
}
