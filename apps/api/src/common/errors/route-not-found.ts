import { NotFoundException, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, Reflector, type DiscoveryService } from '@nestjs/core';
import type { Request } from 'express';
import type { Answer } from './answer';

export const NO_ENDPOINT = 'There is no endpoint at this path.';

/** A route the application serves: its method and path template (`/v1/rooms/:room_id`). */
export interface ServedRoute {
  method: string;
  path: string;
}

/** A path template as segments: a literal (lower case) or a parameter (null), matched as Express matches them. */
type Template = (string | null)[];

function template(path: string): Template {
  return path
    .split('/')
    .slice(1)
    .map((segment) => {
      if (/^:\w+$/.test(segment)) return null;
      if (/[:*{}()?+]/.test(segment)) throw new Error(`Route path ${path}: only literal and :parameter segments are understood`);
      return segment.toLowerCase();
    });
}

/**
 * The routes of the application, read once at start from Nest's own metadata of its controllers (the
 * `DiscoveryService`, `MetadataScanner` and `Reflector` that Nest offers for this), plus any served
 * beside them (the documentation). Answers which methods a path is served with, for the 405 of a
 * path asked with another method.
 */
export class ServedRoutes {
  private readonly routes: { method: string; segments: Template }[];

  constructor(routes: readonly ServedRoute[]) {
    this.routes = routes.map(({ method, path }) => ({ method, segments: template(path) }));
  }

  static of(discovery: DiscoveryService, others: readonly ServedRoute[] = []): ServedRoutes {
    const reflector = new Reflector();
    const scanner = new MetadataScanner();
    const routes: ServedRoute[] = [...others];
    for (const { metatype, instance } of discovery.getControllers()) {
      if (!metatype || !instance) continue;
      const prefixes = [reflector.get<string | string[] | undefined>(PATH_METADATA, metatype) ?? '/'].flat();
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as () => unknown;
        const paths = reflector.get<string | string[] | undefined>(PATH_METADATA, handler);
        const method = reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
        if (paths === undefined || method === undefined) continue;
        for (const prefix of prefixes)
          for (const path of [paths].flat()) routes.push({ method: RequestMethod[method], path: joined(prefix, path) });
      }
    }
    return new ServedRoutes(routes);
  }

  /** The methods served at `path`, HEAD with GET as Express answers it; empty when none is. */
  allowedMethods(path: string): string[] {
    const segments = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/').slice(1);
    const methods = new Set<string>();
    for (const route of this.routes) {
      if (route.method === 'ALL' || !matches(route.segments, segments)) continue;
      methods.add(route.method);
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

/** Nest's joining of a controller's and a handler's path: one leading slash each, no trailing slash. */
function joined(prefix: string, path: string): string {
  const parts = [prefix, path].flatMap((part) => part.split('/')).filter((part) => part !== '');
  return `/${parts.join('/')}`;
}

/** Express's matching: literals case-insensitively, a parameter any non-empty segment. */
function matches(route: Template, segments: string[]): boolean {
  if (route.length !== segments.length) return false;
  for (let i = 0; i < route.length; i++) {
    const literal = route[i];
    if (literal === null ? segments[i] === '' : segments[i].toLowerCase() !== literal) return false;
  }
  return true;
}

/** Whether Nest answered because no route matched the request (its not-found handler's exception), not a handler's 404. */
export function isUnmatchedRoute(error: unknown, request: Request): boolean {
  return error instanceof NotFoundException && error.message === `Cannot ${request.method} ${request.originalUrl}`;
}

/** 405 with `Allow` for a path served with other methods, else 404: as users of HTTP APIs expect. */
export function unmatchedRouteAnswer(request: Request, routes: ServedRoutes): Answer {
  const allowed = routes.allowedMethods(request.path);
  if (allowed.length === 0) return { status: 404, body: { detail: NO_ENDPOINT } };
  const listed = allowed.filter((method) => method !== 'HEAD');
  const choices = listed.length === 1 ? listed[0] : `${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}`;
  return {
    status: 405,
    body: { detail: `${request.method} is not allowed on this path; use ${choices}.` },
    headers: { Allow: allowed.join(', ') },
  };
}
