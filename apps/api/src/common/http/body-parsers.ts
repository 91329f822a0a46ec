import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../config/app-config';

/** Signed deliveries of LiveKit and Stripe: the only routes whose bodies may be large. */
const WEBHOOK_PATH = /^\/v1\/webhooks\//i;

const isWebhook = (request: IncomingMessage) => WEBHOOK_PATH.test(request.url ?? '');
const mediaTypeOf = (request: IncomingMessage) => (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
const isJson = (request: IncomingMessage) => mediaTypeOf(request) === 'application/json';

/**
 * The body parsers, with a small limit everywhere but the webhooks (the largest body of this API's own
 * routes is well under 1 KB), so an oversized body is refused with 413 before anything reads it.
 */
export function registerBodyParsers(app: NestExpressApplication, config: AppConfig): void {
  const { bodyLimitBytes, webhookBodyLimitBytes } = config.http;
  // Not strict: any JSON value is parsed, so a body that is valid JSON but not an object gets model_attributes_type.
  app.useBodyParser('json', { limit: webhookBodyLimitBytes, strict: false, type: (r: IncomingMessage) => isWebhook(r) && isJson(r) });
  app.useBodyParser('json', { limit: bodyLimitBytes, strict: false, type: (r: IncomingMessage) => !isWebhook(r) && isJson(r) });
  // LiveKit posts its webhooks as application/webhook+json; keep them as text for the signature check.
  app.useBodyParser('text', {
    type: (r: IncomingMessage) => isWebhook(r) && mediaTypeOf(r) === 'application/webhook+json',
    limit: webhookBodyLimitBytes,
  });
  // Any other body is read as text rather than ignored: a body that is not JSON gets 422
  // model_attributes_type (as in FastAPI), never a room made from defaults.
  // (A zero-length body is no body: left undefined, it counts as an empty object.)
  app.useBodyParser('text', { type: (r: IncomingMessage) => r.headers['content-length'] !== '0', limit: bodyLimitBytes });
}
