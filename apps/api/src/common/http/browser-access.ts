import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { AppConfig } from '../../config/app-config';

/**
 * helmet's default headers (its CSP allows Swagger UI at /docs: scripts and styles from the same
 * origin). They depend on nothing in the request, so helmet runs once, at start, on a response that
 * only records them; every answer then gets the recorded list.
 */
export function securityHeaders(): ReadonlyArray<readonly [string, string]> {
  const recorded: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => recorded.push([name, String(value)]),
    removeHeader: () => undefined, // X-Powered-By: express does not send it (app.disable)
    getHeader: () => undefined,
  } as unknown as ServerResponse;
  let done = false;
  helmet()({ headers: {} } as IncomingMessage, recorder, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error(String(error));
    done = true;
  });
  if (!done) throw new Error('helmet did not set its headers synchronously');
  return recorded;
}

/** CORS only for the origins the deployment lists, so a browser dashboard there can call the API. */
export function allowBrowsers(app: NestExpressApplication, config: AppConfig): void {
  if (config.http.corsOrigins.length === 0) return;
  app.enableCors({
    origin: config.http.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed', 'Location'],
    maxAge: 600,
  });
}
