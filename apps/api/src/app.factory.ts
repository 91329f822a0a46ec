import type { INestApplication } from '@nestjs/common';
import { DiscoveryService, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { createRootLogger, JsonLogger } from './common/logging/request-logging';
import { InputValidationPipe } from './common/validation/input-validation.pipe';
import type { AppConfig } from './config/app-config';
import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import { mountOpenApi, OPENAPI_ROUTES } from './openapi';
import { ServedRoutes } from './common/errors/route-not-found';
import { MetricsRegistry } from './common/metrics/metrics.registry';
import { readBodies } from './common/http/body-parsers';
import { allowBrowsers } from './common/http/browser-access';
import { requestEnvelope } from './common/http/request-envelope';
import { JsonReplyAdapter } from './common/http/json-reply';
import { AuditLogService } from './modules/audit/audit-log.service';
import { IdempotencyStore } from './modules/idempotency/idempotency.store';

/** Builds the configured application; main.ts and the tests share it. */
export async function createApp(config: AppConfig, logDestination?: DestinationStream): Promise<INestApplication> {
  const logger = createRootLogger(config, logDestination);
  const adapter = new JsonReplyAdapter();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), adapter, {
    logger: new JsonLogger(logger),
    bodyParser: false, // read below (readBodies), with our limits, keeping the raw bytes for webhook signatures
  });
  app.use(requestEnvelope(logger, app.get(MetricsRegistry)));
  allowBrowsers(app, config);
  app.use(readBodies(config));
  if (config.http.trustProxyHops > 0) app.set('trust proxy', config.http.trustProxyHops);
  // A client that sends its headers or body too slowly is cut off (408) instead of holding a socket for Node's 300 s.
  const server = app.getHttpServer() as Server;
  server.requestTimeout = config.timeouts.httpRequestMs;
  server.headersTimeout = config.timeouts.httpHeadersMs;
  app.disable('x-powered-by');
  app.set('etag', false);
  app.useGlobalPipes(new InputValidationPipe());
  const audit = app.get(AuditLogService);
  // An idempotent request's first answer is stored before it is sent, whether a value or an error (IdempotencyGuard).
  const idempotency = app.get(IdempotencyStore);
  adapter.beforeReply = (response, body, statusCode) => idempotency.answered(response, body, statusCode);
  app.useGlobalFilters(
    new AllExceptionsFilter(
      ServedRoutes.of(app.get(DiscoveryService), config.http.docsEnabled ? OPENAPI_ROUTES : []),
      (actor, denial) => audit.denied(actor, denial),
      (request, answer) => idempotency.answeredWithError(request, answer),
    ),
  );
  app.enableShutdownHooks();
  if (config.http.docsEnabled) mountOpenApi(app);
  return app;
}
