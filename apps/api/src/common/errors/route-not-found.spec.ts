import { ServedRoutes } from './route-not-found';

describe('ServedRoutes', () => {
  const routes = new ServedRoutes([
    { method: 'GET', path: '/v1/rooms' },
    { method: 'POST', path: '/v1/rooms' },
    { method: 'GET', path: '/v1/rooms/:room_id' },
    { method: 'DELETE', path: '/v1/rooms/:room_id' },
    { method: 'POST', path: '/v1/rooms/:room_name/token' },
    { method: 'ALL', path: '/v1/anything' },
  ]);

  it.each([
    ['/v1/rooms', ['GET', 'HEAD', 'POST']],
    ['/v1/rooms/', ['GET', 'HEAD', 'POST']],
    ['/V1/Rooms', ['GET', 'HEAD', 'POST']],
    ['/v1/rooms/abc.def', ['DELETE', 'GET', 'HEAD']],
    ['/v1/rooms/abc/token', ['POST']],
    ['/v1/rooms//token', []],
    ['/v1//rooms', []],
    ['/v1/rooms/a/b', []],
    ['/v1/anything', []],
    ['/', []],
  ])('%s is served with %j, as Express matches paths', (path, methods) => {
    expect(routes.allowedMethods(path)).toEqual(methods);
  });

  it('refuses a path template it cannot match as Express would', () => {
    expect(() => new ServedRoutes([{ method: 'GET', path: '/files/*rest' }])).toThrow(/only literal and :parameter segments/);
  });
});
