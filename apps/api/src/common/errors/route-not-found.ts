import type { Request } from 'express';
import type { Answer } from './answer';

export const NO_ENDPOINT = 'There is no endpoint at this path.';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

/** Whether Nest answered because no route matched the request (rather than a handler saying 404). */
export function isUnmatchedRoute(error: unknown, request: Request): boolean {
  return error instanceof Error && error.message === `Cannot ${request.method} ${request.originalUrl}`;
}

/** The methods served at the request's path, HEAD with GET as Express answers it; empty when none is. */
export function allowedMethods(request: Request): string[] {
  const stack = (request.app as unknown as { router?: { stack: RouteLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !layer.match(request.path)) continue;
    for (const [method, served] of Object.entries(layer.route.methods)) if (served && method !== '_all') methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** 405 with `Allow` for a path served with other methods, else 404: as users of HTTP APIs expect. */
export function unmatchedRouteAnswer(request: Request): Answer {
  const allowed = allowedMethods(request);
  if (allowed.length === 0) return { status: 404, body: { detail: NO_ENDPOINT } };
  const listed = allowed.filter((method) => method !== 'HEAD');
  const choices = listed.length === 1 ? listed[0] : `${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}`;
  return {
    status: 405,
    body: { detail: `${request.method} is not allowed on this path; use ${choices}.` },
    headers: { Allow: allowed.join(', ') },
  };
}
