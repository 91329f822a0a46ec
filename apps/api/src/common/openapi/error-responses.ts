import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

export class ErrorBody {
  @ApiProperty({ example: 'Room not found.' }) detail!: string;
}

export class ValidationIssueSchema {
  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, example: ['body', 'max_uses'] })
  loc!: (string | number)[];
  @ApiProperty({ example: 'Input should be less than or equal to 100' }) msg!: string;
  @ApiProperty({ example: 'less_than_equal' }) type!: string;
  @ApiProperty({ description: 'the offending input', nullable: true }) input!: unknown;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { le: 100 } }) ctx!: Record<string, unknown>;
}

export class ValidationErrorBody {
  @ApiProperty({ type: [ValidationIssueSchema] }) detail!: ValidationIssueSchema[];
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, malformed, unknown or revoked credentials',
  402: 'Balance at or below zero',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  503: 'A provider is unavailable',
};

/** Documents error answers: 422 (endpoints that take parameters) with the validation body, the rest with `{"detail"}`. */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...statuses.map((status) =>
      status === 422
        ? ApiResponse({ status, description: 'Validation error', type: ValidationErrorBody })
        : ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorBody }),
    ),
  );
}
