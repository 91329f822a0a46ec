import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { createExpressShapedServer } from './express-shaped-server';

describe('createExpressShapedServer', () => {
  it("makes requests and responses with Express's prototypes, which Express's own methods still serve", async () => {
    const app = express();
    app.get('/x/:id', (req, res) => {
      res.json({ id: req.params.id, app: req.app === app, header: req.get('x-probe'), ip: typeof req.ip });
    });
    const server = createExpressShapedServer(app);
    const seen: boolean[] = [];
    // Before Express's `app.handle`: the objects Node made already stand on `app.request` and `app.response`.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/x/42`, { headers: { 'X-Probe': 'yes' } });
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await answer.json()).toEqual({ id: '42', app: true, header: 'yes', ip: 'string' });
      expect(seen).toEqual([true, true]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
