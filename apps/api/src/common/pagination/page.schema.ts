import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

/** OpenAPI for a Page envelope of `item`. */
export function ApiPageResponse(item: Type<unknown>, description: string) {
  return applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['items', 'limit', 'offset', 'next_offset'],
        properties: {
          items: { type: 'array', items: { $ref: getSchemaPath(item) } },
          limit: { type: 'integer' },
          offset: { type: 'integer' },
          next_offset: { type: 'integer', nullable: true },
        },
      },
    }),
  );
}
