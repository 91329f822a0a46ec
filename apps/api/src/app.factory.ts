import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { createRootLogger, JsonLogger, requestLogging } from './common/logging/request-logging';
import { InputValidationPipe } from './common/validation/validation.pipe';
import type { AppConfig } from './config/app-config';
import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import { mountOpenApi } from './openapi';
import { httpMetrics } from './modules/metrics/http-metrics';
import { Metrics } from './modules/metrics/metrics';
import { registerBodyParsers } from './common/http/body-parsers';
import { refuseEncodedBodies } from './common/http/content-encoding';
import { allowBrowsers } from './common/http/browser-access';

/** Builds the configured application; main.ts and the tests share it. */
export async function createApp(config: AppConfig, logDestination?: DestinationStream): Promise<INestApplication> {
  const logger = createRootLogger(config, logDestination);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    logger: new JsonLogger(logger),
    rawBody: true, // webhook signatures are checked over the exact bytes received
    bodyParser: false, // registered below, once, with our limits
  });
  app.use(requestLogging(logger));
  app.use(httpMetrics(app.get(Metrics)));
  allowBrowsers(app, config);
  app.use(refuseEncodedBodies);
  registerBodyParsers(app, config);
  if (config.http.trustProxyHops > 0) app.set('trust proxy', config.http.trustProxyHops);
  // A client that sends its headers or body too slowly is cut off (408) instead of holding a socket for Node's 300 s.
  const server = app.getHttpServer() as Server;
  server.requestTimeout = config.timeouts.httpRequestMs;
  server.headersTimeout = config.timeouts.httpHeadersMs;
  app.disable('x-powered-by');
  app.set('etag', false);
  app.useGlobalPipes(new InputValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  app.enableShutdownHooks();
  if (config.http.docsEnabled) mountOpenApi(app);
  return app;
}
