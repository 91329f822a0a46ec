import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError, INVITE_NOT_FOUND } from './api-error';
import { DOMAIN_ERROR_STATUS } from './error-status';
import { everyInputIssue } from '../validation/route-inputs';
import { NO_ENDPOINT, ServedRoutes, isUnmatchedRoute, unmatchedRouteAnswer } from './route-not-found';
import { dependencyFailure } from './service-unavailable';
import { RequestValidationError, type ValidationIssue } from './validation-error';
import { echoPrefix } from '../json/json-shape';
import { loggableUrl } from '../logging/request-logging';
import { ReplayedAnswer } from './replayed-answer';
import type { Answer } from './answer';
import type { Actor, AuthenticatedRequest } from '../auth/actor';

/** Records a refused request (403) of an authenticated caller; resolves once recorded (or given up), never rejects. */
export type DenialRecorder = (
  actor: Actor,
  denial: { permission: string | null; method: string; route: string; reason: string },
) => Promise<void>;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request.',
  401: 'Not authenticated.',
  403: 'Forbidden.',
  404: NO_ENDPOINT,
  405: 'Method not allowed.',
  408: 'The request body did not arrive in time.',
  413: 'Request body is too large.',
  415: 'Unsupported media type.',
};

interface BodyParserError {
  type: string;
  status?: number;
  message: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string' && 'status' in error;
}

function hasCode(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

function jsonInvalid(message: string): Answer {
  return {
    status: 422,
    body: { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: message } }] },
  };
}

/** The 422 body: each issue's `input` cut to a short prefix, so an answer never echoes a large body back. */
function unprocessable(issues: ValidationIssue[]): Answer {
  return { status: 422, body: { detail: issues.map((issue) => ({ ...issue, input: echoPrefix(issue.input) })) } };
}

export function answerFor(error: unknown): Answer | null {
  if (error instanceof RequestValidationError) return unprocessable(error.issues);
  const unavailable = dependencyFailure(error);
  if (unavailable) return { status: 503, body: { detail: unavailable.message }, headers: unavailable.headers };
  if (error instanceof ApiError) return { status: error.status, body: { detail: error.message }, headers: error.headers };
  if (hasCode(error) && DOMAIN_ERROR_STATUS[error.code] !== undefined) {
    return { status: DOMAIN_ERROR_STATUS[error.code], body: { detail: error.message } };
  }
  if (isBodyParserError(error)) {
    if (error.type === 'entity.parse.failed') return jsonInvalid(error.message);
    const status = error.status ?? 400;
    return { status, body: { detail: STATUS_TEXT[status] ?? 'Bad request.' } };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const cause = error.cause;
    if (cause !== undefined && isBodyParserError(cause) && cause.type === 'entity.parse.failed') return jsonInvalid(cause.message);
    if (error.message.includes('JSON') && status === 400) return jsonInvalid(error.message);
    return { status, body: { detail: STATUS_TEXT[status] ?? error.message } };
  }
  return null;
}

/** A path parameter that cannot even be URL-decoded names nothing that exists: the route's own 404. */
function undecodablePath(error: unknown, path: string): Answer | null {
  if (!(error instanceof Error) || !error.message.startsWith('Failed to decode param')) return null;
  return { status: 404, body: { detail: path.startsWith('/v1/invites/') ? INVITE_NOT_FOUND : NO_ENDPOINT } };
}

function answerTo(error: unknown, request: Request): Answer | null {
  const undecodable = undecodablePath(error, request.path);
  if (undecodable) return undecodable;
  if (error instanceof RequestValidationError && !error.complete) {
    // Nest stops at the first input that fails: the request is validated again as a whole, so the
    // 422 names every violated field of the path, the query and the body.
    const issues = everyInputIssue(request);
    return unprocessable(issues && issues.length > 0 ? issues : error.issues);
  }
  return answerFor(error);
}

const INTERNAL_ERROR: Answer = { status: 500, body: { detail: 'Internal server error.' } };

/** What the filter answers for `error` on `request`: status, body (sent as JSON) and headers. */
export function errorAnswer(error: unknown, request: Request): Answer {
  return answerTo(error, request) ?? INTERNAL_ERROR;
}

/** An idempotent request's first answer again, byte for byte. */
function replay(response: Response, answer: ReplayedAnswer): void {
  if (answer.contentType) response.setHeader('Content-Type', answer.contentType);
  response.setHeader('Idempotent-Replayed', 'true');
  response.status(answer.statusCode).send(Buffer.from(answer.body, 'utf8'));
}

/** Turns every error into the interface's body: the 422 list, or `{"detail": "..."}`. Internals are logged, never sent. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  /** `routes`: what the application serves, for the 405 of a path asked with another method. */
  constructor(
    private readonly routes = new ServedRoutes([]),
    /** The audit log's `access.denied` writer: every 403 an authenticated caller gets is recorded before it is answered. */
    private readonly recordDenial: DenialRecorder | null = null,
    /** Told of every error answer before it is sent; a promise it returns is waited for (an idempotent request's answer is stored). */
    private readonly beforeAnswer: ((request: Request, answer: Answer) => Promise<void> | null) | null = null,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    if (error instanceof ReplayedAnswer) return replay(response, error);
    let answer = isUnmatchedRoute(error, request) ? unmatchedRouteAnswer(request, this.routes) : answerTo(error, request);
    if (!answer) {
      this.logger.error({ err: error, path: loggableUrl(request.path), requestId: request.id }, 'Unhandled error');
      answer = INTERNAL_ERROR;
    } else if (answer.status >= 500) {
      const cause = dependencyFailure(error)?.cause;
      this.logger.warn(
        {
          requestId: request.id,
          path: loggableUrl(request.path),
          status: answer.status,
          detail: answer.body.detail,
          ...(cause instanceof Error ? { cause: cause.message } : {}),
        },
        'Answered with a server error',
      );
    }
    const write = (final: Answer) => {
      if (response.headersSent) return;
      for (const [name, value] of Object.entries(final.headers ?? {})) response.setHeader(name, value);
      response.status(final.status).json(final.body);
    };
    const send = (final: Answer) => {
      const pending = this.beforeAnswer?.(request, final);
      if (pending) void pending.then(() => write(final));
      else write(final);
    };
    const actor = (request as AuthenticatedRequest).actor;
    if (answer.status === 403 && actor && this.recordDenial) {
      const final = answer;
      const denial = {
        permission: (request as AuthenticatedRequest).accessRule ?? null,
        method: request.method,
        route: typeof request.route?.path === 'string' ? (request.route.path as string) : loggableUrl(request.path),
        reason: String(answer.body.detail),
      };
      void this.recordDenial(actor, denial).then(() => send(final));
      return;
    }
    send(answer);
  }
}
