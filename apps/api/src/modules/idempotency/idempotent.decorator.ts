import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ErrorBody, ValidationErrorBody } from '../../common/openapi/error-responses';
import { IdempotencyGuard } from './idempotency.guard';

/**
 * Accepts an `Idempotency-Key` header on this POST (docs/decisions.md, "Idempotency keys"). Put it
 * above `@ApiErrors`: its 409 and 422 documentation (a 422 may also be a `{"detail"}` sentence) wins.
 */
export function Idempotent() {
  return applyDecorators(
    UseGuards(IdempotencyGuard),
    ApiExtraModels(ErrorBody, ValidationErrorBody),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
      description:
        'Makes a retry safe: for 24 hours the same key with the same method, path and body returns the first answer again ' +
        '(status and body, with the header `Idempotent-Replayed: true`) and creates nothing twice. ' +
        'Reused with another body: 422; while the first request runs: 409. A first answer with a 5xx status is not remembered.',
    }),
    ApiResponse({ status: 409, description: 'A request with this Idempotency-Key is still running', type: ErrorBody }),
    ApiResponse({
      status: 422,
      description:
        'Also when the Idempotency-Key is malformed (at ["header","idempotency-key"]), or was used with another method, path or body (`{"detail"}`)',
      schema: { oneOf: [{ $ref: getSchemaPath(ValidationErrorBody) }, { $ref: getSchemaPath(ErrorBody) }] },
    }),
  );
}
