import type { LoggerService } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { AppConfig } from '../../config/app-config';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    id?: string;
  }
}

export function createRootLogger(config: AppConfig, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'api' },
      redact: { paths: ['authorization', 'headers.authorization', 'headers.cookie', 'headers["stripe-signature"]'], censor: '[redacted]' },
    },
    destination ?? pino.destination(1),
  );
}

/** Invite codes are credentials: they never reach a log line, however the path's letters are cased. */
export function loggableUrl(url: string): string {
  return url.replace(/\/v1\/invites\/[^/?]+/gi, '/v1/invites/[code]');
}

/**
 * Gives the request an id (a safe incoming X-Request-Id, or a new UUID) and echoes it in X-Request-Id.
 * No async context is kept per request: it costs every promise of the request, and the lines that
 * need the id (the request's own line and the error filter's) have the request at hand.
 */
export function tagRequest(request: Request, response: Response): string {
  const incoming = request.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  request.id = id;
  response.setHeader('X-Request-Id', id);
  return id;
}

/** The one JSON line written per answered request, when the level shows info. */
export function requestLogLine(logger: Logger): ((request: Request, response: Response, ms: number) => void) | null {
  if (!logger.isLevelEnabled('info')) return null;
  return (request, response, ms) =>
    logger.info(
      { requestId: request.id, method: request.method, url: loggableUrl(request.originalUrl), status: response.statusCode, ms },
      'request',
    );
}

/** Nest's start-up detail (one line per module and per route): debug, so a start prints a few lines, not a hundred. */
const BOOT_DETAIL = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

/**
 * Nest's own log lines (boot, workers, errors) as JSON through the same logger. Nest passes the
 * logger's context last; `logger.warn({ ...fields }, 'message')` puts the message in between.
 */
export class JsonLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write(BOOT_DETAIL.has(String(params[params.length - 1])) ? 'debug' : 'info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace', message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    const text = params.slice(0, context === undefined ? params.length : -1).find((p): p is string => typeof p === 'string');
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...(message as object) }, text);
    else this.logger[level]({ context }, String(message));
  }
}
