import type { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';
import type { AppConfig } from '../../config/app-config';

/**
 * helmet's defaults (its CSP allows Swagger UI at /docs: scripts and styles from the same origin), and
 * CORS only for the origins the deployment lists, so a browser dashboard there can call the API.
 */
export function allowBrowsers(app: NestExpressApplication, config: AppConfig): void {
  app.use(helmet());
  if (config.http.corsOrigins.length === 0) return;
  app.enableCors({
    origin: config.http.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed', 'Location'],
    maxAge: 600,
  });
}
