import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from './webhook-sender';

/** What one attempt against a local endpoint comes back as: the result the retry policy decides on. */
describe('postWebhook', () => {
  const options = { timeoutMs: 1_000, allowPrivate: true };
  let server: Server;
  let url: string;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  let received: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[];

  beforeEach(async () => {
    received = [];
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, headers: req.headers, body });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts the body with the signature headers given, as JSON', async () => {
    answer = (_req, res) => res.writeHead(204).end();
    const body = JSON.stringify({ type: 'room.started', data: { id: 'room-1' } });
    await postWebhook(url, { 'webhook-id': 'evt_1', 'webhook-signature': 'v1,abc' }, body, options);
    expect(received).toEqual([
      {
        method: 'POST',
        url: '/hooks',
        headers: expect.objectContaining({
          'webhook-id': 'evt_1',
          'webhook-signature': 'v1,abc',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'translation-rooms-webhooks/1',
        }) as IncomingMessage['headers'],
        body,
      },
    ]);
  });

  it.each([200, 201, 202, 204, 299])('counts %s as delivered', async (status) => {
    answer = (_req, res) => res.writeHead(status).end('ignored');
    expect(await postWebhook(url, {}, '{}', options)).toEqual({ ok: true, statusCode: status });
  });

  it.each([300, 304, 400, 401, 404, 410, 429, 500, 502, 503])('counts %s as a failed attempt, with its status', async (status) => {
    answer = (_req, res) => res.writeHead(status).end();
    expect(await postWebhook(url, {}, '{}', options)).toEqual({ ok: false, statusCode: status, error: `The endpoint answered ${status}.` });
  });

  it('gives up on an endpoint that does not answer within the timeout', async () => {
    answer = () => undefined;
    const started = Date.now();
    expect(await postWebhook(url, {}, '{}', { ...options, timeoutMs: 200 })).toEqual({
      ok: false,
      statusCode: null,
      error: 'No answer within 0.2 s.',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it.each<[string, () => string]>([
    ['a connection cut before the answer', () => ((answer = (req) => req.socket.destroy()), url)],
    ['a refused connection', () => 'http://127.0.0.1:1/hooks'],
  ])('counts %s as a failed attempt without a status', async (_, arrange) => {
    const result = await postWebhook(arrange(), {}, '{}', options);
    expect(result).toEqual({ ok: false, statusCode: null, error: expect.stringMatching(/^Could not deliver: /) as string });
  });

  it('counts a URL that does not parse as a failed attempt', async () => {
    expect(await postWebhook('not a url', {}, '{}', options)).toEqual({
      ok: false,
      statusCode: null,
      error: 'The endpoint URL is not valid.',
    });
  });

  it('counts a URL of another scheme as a failed attempt, even where private URLs are allowed', async () => {
    for (const other of [url.replace('http:', 'ftp:'), url.replace('http:', 'file:')]) {
      expect(await postWebhook(other, {}, '{}', options)).toEqual({ ok: false, statusCode: null, error: 'The endpoint URL is not valid.' });
    }
    expect(received).toEqual([]);
  });
});
