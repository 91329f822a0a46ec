import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse, type OpenAPIObject } from '@nestjs/swagger';

export class ErrorBody {
  @ApiProperty({ example: 'Room not found.' }) detail!: string;
}

export class ValidationIssueSchema {
  @ApiProperty({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, example: ['body', 'max_uses'] })
  loc!: (string | number)[];
  @ApiProperty({ example: 'Input should be less than or equal to 100' }) msg!: string;
  @ApiProperty({ example: 'less_than_equal' }) type!: string;
  /** Typed as any JSON value by finishDocument (decorators cannot say "no type"). */
  @ApiProperty({ description: 'the offending input: any JSON value', example: 250 }) input!: unknown;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { le: 100 } }) ctx!: Record<string, unknown>;
}

export class ValidationErrorBody {
  @ApiProperty({ type: [ValidationIssueSchema] }) detail!: ValidationIssueSchema[];
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  402: 'Balance at or below zero',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
};

/**
 * Documents the error answers particular to an operation: 422 (operations that take parameters) with
 * the validation body, the rest with `{"detail"}`. Answers every operation may give (401, 413, 415,
 * 429, 503) are added by `addCommonErrors`, from COMMON_ERRORS.
 */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...statuses
      .filter((status) => !COMMON_ERRORS.some((common) => common.status === status && !common.unlessDocumented))
      .map((status) =>
        status === 422
          ? ApiResponse({ status, description: 'Validation error: every violated field, in request order', type: ValidationErrorBody })
          : ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorBody }),
      ),
  );
}

type Operation = { security?: unknown[]; requestBody?: unknown; responses: Record<string, unknown>; parameters?: unknown[] };

/** Every authenticated operation: a session picks the organization it acts in (an API key acts in its own). */
const ORGANIZATION_ID_PARAMETER = {
  name: 'Organization-Id',
  in: 'header',
  required: false,
  description:
    "The organization a session acts in (one of the user's; default: the oldest membership). An API key acts in its own organization only.",
  schema: { type: 'string', format: 'uuid' },
};
type Header = { description: string; schema: { type: 'string' | 'integer' } };

const RETRY_AFTER: Header = { description: 'Seconds to wait before trying again', schema: { type: 'integer' } };

/**
 * Answers any operation may give, in one place: a new status that applies everywhere is one entry.
 * `component` names the shared answer under components.responses.
 */
export const COMMON_ERRORS: {
  status: number;
  component: string;
  description: string;
  appliesTo: (operation: Operation) => boolean;
  headers?: Record<string, Header>;
  /** Added only where the operation documents no answer of its own for this status. */
  unlessDocumented?: boolean;
}[] = [
  {
    status: 401,
    component: 'Unauthorized',
    description: 'Missing, malformed, unknown, revoked or expired credentials',
    appliesTo: (operation) => (operation.security?.length ?? 0) > 0,
  },
  {
    status: 403,
    component: 'Forbidden',
    description: "The caller's role (or the API key's scopes) lacks the permission the operation needs; nothing was changed",
    appliesTo: (operation) => (operation.security?.length ?? 0) > 0,
  },
  {
    status: 404,
    component: 'OrganizationNotFound',
    description: 'Organization-Id names an organization the caller does not act in',
    appliesTo: (operation) => (operation.security?.length ?? 0) > 0,
    unlessDocumented: true,
  },
  {
    status: 413,
    component: 'PayloadTooLarge',
    description: 'The request body is larger than the API accepts',
    appliesTo: (operation) => operation.requestBody !== undefined,
  },
  {
    status: 415,
    component: 'UnsupportedMediaType',
    description: 'A compressed request body (Content-Encoding): send it uncompressed',
    appliesTo: (operation) => operation.requestBody !== undefined,
  },
  {
    status: 429,
    component: 'TooManyRequests',
    description: 'Too many requests for this key or address: wait Retry-After seconds',
    appliesTo: () => true,
    headers: {
      'Retry-After': RETRY_AFTER,
      RateLimit: { description: 'The remaining budget of the current window', schema: { type: 'string' } },
    },
  },
  {
    status: 503,
    component: 'ServiceUnavailable',
    description: 'A dependency (database, Redis, LiveKit, Stripe) is unavailable: nothing was changed; try again after Retry-After seconds',
    appliesTo: () => true,
    headers: { 'Retry-After': RETRY_AFTER },
  },
];

/** Answers to requests outside the documented operations: an unknown path, a method a path does not serve. */
export const UNMATCHED_RESPONSES = {
  NotFound: { description: 'There is no endpoint at this path', headers: {} },
  MethodNotAllowed: {
    description: 'The path is served, but not with this method; Allow lists the methods it is served with',
    headers: { Allow: { description: 'The methods of the path, e.g. `GET, HEAD, POST`', schema: { type: 'string' } } as Header },
  },
} as const;

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } };

/** Adds COMMON_ERRORS to every operation they apply to, as references to shared components.responses. */
export function addCommonErrors(document: OpenAPIObject): void {
  const responses = (document.components!.responses ??= {});
  for (const { component, description, headers } of COMMON_ERRORS) responses[component] = { description, headers, content: errorContent };
  for (const [name, { description, headers }] of Object.entries(UNMATCHED_RESPONSES)) {
    responses[name] = { description, headers, content: errorContent };
  }
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      if (typeof operation !== 'object' || !operation.responses) continue;
      for (const common of COMMON_ERRORS) {
        if (!common.appliesTo(operation) || (common.unlessDocumented && operation.responses[String(common.status)])) continue;
        operation.responses[String(common.status)] = { $ref: `#/components/responses/${common.component}` };
      }
      if ((operation.security?.length ?? 0) > 0) (operation.parameters ??= []).push(ORGANIZATION_ID_PARAMETER);
    }
  }
}
