import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { createRootLogger, JsonLogger, requestLogging } from './common/logging/request-logging';
import { InputValidationPipe } from './common/validation/validation.pipe';
import type { AppConfig } from './config/app-config';
import type { IncomingMessage, Server } from 'node:http';
import type { DestinationStream } from 'pino';
import { mountOpenApi } from './openapi';

/** Builds the configured application; main.ts and the tests share it. */
export async function createApp(config: AppConfig, logDestination?: DestinationStream): Promise<INestApplication> {
  const logger = createRootLogger(config, logDestination);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    logger: new JsonLogger(logger),
    rawBody: true, // webhook signatures are checked over the exact bytes received
    bodyParser: false, // registered below, once, with our limits
  });
  app.use(requestLogging(logger));
  // Not strict: any JSON value is parsed, so a body that is valid JSON but not an object gets model_attributes_type.
  app.useBodyParser('json', { limit: '1mb', strict: false });
  // LiveKit posts its webhooks as application/webhook+json; keep them as text for the signature check.
  app.useBodyParser('text', { type: 'application/webhook+json', limit: '1mb' });
  // Any other body is read as text rather than ignored: a body that is not JSON gets 422
  // model_attributes_type (as in FastAPI), never a room made from defaults.
  // (A zero-length body is no body: left undefined, it counts as an empty object.)
  app.useBodyParser('text', { type: (req: IncomingMessage) => req.headers['content-length'] !== '0', limit: '1mb' });
  // A client that sends its headers or body too slowly is cut off (408) instead of holding a socket for Node's 300 s.
  const server = app.getHttpServer() as Server;
  server.requestTimeout = config.timeouts.httpRequestMs;
  server.headersTimeout = config.timeouts.httpHeadersMs;
  app.disable('x-powered-by');
  app.set('etag', false);
  app.useGlobalPipes(new InputValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  app.enableShutdownHooks();
  mountOpenApi(app);
  return app;
}
