import type { INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { Permission } from '@app/domain';
import { IS_PUBLIC } from '../../src/common/auth/public.decorator';
import { REQUIRED_PERMISSION, type RouteAccessRule } from '../../src/common/auth/requires.decorator';

export interface Route {
  method: string;
  /** The path as the router serves it, e.g. `/v1/rooms/:room_id`. */
  path: string;
  /** What the route declares: public, any member, a permission, or nothing (a route the guard refuses). */
  access: 'public' | 'member' | Permission | null;
}

const join = (...parts: string[]) =>
  `/${parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/')}`;

/** Every route of the application's router, read from its controllers as Nest registers them. */
export function routeTable(app: INestApplication): Route[] {
  const reflector = app.get(Reflector);
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  const controllers = [...app.get(ModulesContainer).values()].flatMap((module) => [...module.controllers.values()]);
  for (const wrapper of controllers) {
    const { instance, metatype } = wrapper;
    if (!instance || !metatype) continue;
    const base = (Reflect.getMetadata(PATH_METADATA, metatype) as string | undefined) ?? '';
    const methods = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(methods)) {
      const handler = methods[name] as object;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (path === undefined || method === undefined) continue;
      const targets = [handler, metatype] as never[];
      const isPublic = reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true;
      const rule = reflector.getAllAndOverride<RouteAccessRule | undefined>(REQUIRED_PERMISSION, targets);
      routes.push({ method: RequestMethod[method], path: join(base, path), access: isPublic ? 'public' : (rule ?? null) });
    }
  }
  return routes;
}
