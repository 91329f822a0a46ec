import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Express } from 'express';

/**
 * Node's HTTP server for `app`, making each request and response with Express's own prototypes
 * (`app.request`, `app.response`) from the start.
 *
 * Express gives every request and response its prototypes with `Object.setPrototypeOf` (`app.handle`).
 * V8 keeps no transitions from an object whose prototype was changed: from there on each property
 * Express, Nest and we add (`req.params`, `req.route`, `req.id`, `req.actor`…) makes a hidden class of
 * that one object, and every property read on a request or response misses its inline cache. Made
 * here as instances of classes whose prototypes *are* `app.request` and `app.response`, the objects
 * already have them: Express's `setPrototypeOf` finds nothing to change (the spec's
 * OrdinarySetPrototypeOf returns at once for the same prototype), and every request of a route shares
 * its hidden classes. Nothing changes for Express: the prototype chain (`app`, Express's request and
 * response methods, then Node's) is the one it sets.
 */
export function createExpressShapedServer(app: Express): Server {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {}
  app.request = adopted(ExpressRequest.prototype, app.request) as Express['request'];
  app.response = adopted(ExpressResponse.prototype, app.response) as Express['response'];
  const options: ServerOptions = { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
  return createServer(options, app);
}

/** `prototype` made to stand where `expressPrototype` stood: the same own properties (`app`), over the same chain. */
function adopted(prototype: object, expressPrototype: object): object {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(expressPrototype) as object);
  Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(expressPrototype));
  return prototype;
}
