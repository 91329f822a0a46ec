import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ErrorBody, ValidationErrorBody } from './common/openapi/error-responses';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Translation Room Service')
    .setDescription('Live speech-translation rooms, invite links, prepaid credit, billing history and usage.')
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key (trk_…) or a session JWT' })
    .build();
  return SwaggerModule.createDocument(app, config, { extraModels: [ErrorBody, ValidationErrorBody] });
}

/** Serves the document at /openapi.json and Swagger UI at /docs. */
export function mountOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
}
