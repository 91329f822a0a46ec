import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';
import { createExpressShapedServer } from './express-shaped-server';

/** The media type of every JSON answer, as `res.json` sets it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Statuses whose answers carry no body, which express's `res.send` strips: left to it. */
const BODILESS = new Set([204, 304]);

/**
 * Nest's Express adapter, answering a route's JSON object itself: the exact bytes and headers
 * `res.json` produces (no replacer, spaces or escaping are configured; `application/json;
 * charset=utf-8`, Content-Length), without express's per-answer setting lookups, content-type
 * parsing and freshness check. Anything else (no body, strings, streams, conditional requests,
 * bodiless statuses, a Content-Type already set) goes through express as before. Nest's public
 * adapter API (docs/decisions.md, "The request path"): `reply` is how Nest writes a handler's value,
 * and `initHttpServer` how it makes the HTTP server (`createExpressShapedServer`).
 */
export class JsonReplyAdapter extends ExpressAdapter {
  /** Node's server, making requests and responses with Express's prototypes (HTTPS and tracked connections: Nest's own; unused here). */
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) return super.initHttpServer(options);
    this.setHttpServer(createExpressShapedServer(this.getInstance<Express>()));
  }

  /**
   * Told of every handler's value before it is sent; a promise it returns is waited for (Nest awaits
   * `reply`). The application sets it (app.factory.ts): an idempotent request's answer is stored first.
   */
  beforeReply: ((response: Response, body: unknown, statusCode: number | undefined) => Promise<void> | null) | null = null;

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const pending = this.beforeReply?.(response, body, statusCode);
    return pending ? pending.then(() => this.send(response, body, statusCode)) : this.send(response, body, statusCode);
  }

  private send(response: Response, body: unknown, statusCode?: number): unknown {
    const request = response.req;
    if (
      body === null ||
      typeof body !== 'object' ||
      body instanceof Error ||
      !isPlainData(body) ||
      response.getHeader('Content-Type') !== undefined ||
      request.headers['if-none-match'] !== undefined ||
      request.headers['if-modified-since'] !== undefined ||
      BODILESS.has(statusCode ?? response.statusCode)
    ) {
      return super.reply(response, body, statusCode);
    }
    if (statusCode) response.statusCode = statusCode;
    const json = JSON.stringify(body);
    response.setHeader('Content-Type', JSON_CONTENT_TYPE);
    response.setHeader('Content-Length', Buffer.byteLength(json));
    response.end(json);
    return response;
  }
}

/** Plain objects and arrays (a route's views), not class instances with their own serialization (StreamableFile…). */
function isPlainData(body: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(body);
  return prototype === Object.prototype || prototype === null || Array.isArray(body);
}
