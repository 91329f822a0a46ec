import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * Node's HTTP server for `app`, making each request and response with Express's own prototypes
 * (`app.request`, `app.response`) from the start.
 *
 * Express gives every request and response its prototypes with `Object.setPrototypeOf` (`app.handle`).
 * V8 keeps no transitions from an object whose prototype was changed: from there on each property
 * Express, Nest and we add (`req.params`, `req.route`, `req.id`, `req.actor`…) makes a hidden class of
 * that one object, and every property read on a request or response misses its inline cache. Made here
 * by constructors whose `prototype` *is* `app.request` / `app.response` (Node's `IncomingMessage` and
 * `ServerResponse` options), the objects already stand there: Express's `setPrototypeOf` finds nothing to
 * change (the spec's OrdinarySetPrototypeOf returns at once for the same prototype), and every request of
 * a route shares its hidden classes. Nothing of Express is replaced or modified: its objects are only
 * named as the prototypes, and Node's constructors initialize each instance as they would.
 */
export function createExpressShapedServer(app: Express): Server {
  const options: ServerOptions = {
    IncomingMessage: constructorOn(app.request, (self, socket: Socket) => IncomingMessage.call(self, socket)),
    ServerResponse: constructorOn(app.response, (self, req: IncomingMessage, options?: unknown) =>
      (ServerResponse as unknown as (this: object, req: IncomingMessage, options?: unknown) => void).call(self, req, options),
    ),
  };
  return createServer(options, app);
}

/**
 * A constructor whose instances have `prototype` as theirs, initialized by `init` (Node's own constructor,
 * called on them as its subclasses do). A function, not a class: a class's `prototype` cannot be given.
 */
function constructorOn<A extends unknown[]>(prototype: object, init: (self: object, ...args: A) => unknown): never {
  function Shaped(this: object, ...args: A): void {
    init(this, ...args);
  }
  Shaped.prototype = prototype;
  return Shaped as unknown as never;
}
