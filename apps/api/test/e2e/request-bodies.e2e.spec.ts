import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

/** Sends raw bytes on one connection and resolves with what came back once the server closed it (or after `waitMs`). */
function exchange(port: number, chunks: string[], waitMs: number): Promise<{ text: string; closed: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false, ms: Date.now() - started });
    }, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true, ms: Date.now() - started });
    });
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
/** A client address no other test uses: 48 random bits in IPv6's documentation prefix (never routed). */
const newAddress = () =>
  `2001:db8::${randomBytes(6)
    .toString('hex')
    .replace(/(.{4})(?!$)/g, '$1:')}`;

describe('request bodies', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({
      HTTP_BODY_TIMEOUT_MS: '500',
      RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '2',
      TRUST_PROXY_HOPS: '1',
      STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(16).toString('hex')}`,
    });
    await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
    port = (t.server.address() as AddressInfo).port;
  });
  afterAll(async () => t.close());

  it('refuses a declared Content-Length over the limit with 413 at once and closes the connection, without reading the body', async () => {
    const head = `POST /v1/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200000000\r\n\r\n`;
    const res = await exchange(port, [head, '{"room_name":'], 5_000);
    expect(statusOf(res.text)).toBe(413);
    expect(res.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(res.text).toContain('"detail":"Request body is too large."');
    expect(res.closed).toBe(true);
    expect(res.ms).toBeLessThan(2_000);
  });

  it('answers 408 and closes the connection when a body stops arriving, within HTTP_BODY_TIMEOUT_MS', async () => {
    const head = `POST /v1/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const res = await exchange(port, [head, '{"room_name":"sl'], 5_000);
    expect(statusOf(res.text)).toBe(408);
    expect(res.text).toContain('"detail":"The request body did not arrive in time."');
    expect(res.closed).toBe(true);
    expect(res.ms).toBeGreaterThanOrEqual(400);
    expect(res.ms).toBeLessThan(3_000);
  });

  it('reads webhook bodies as bytes and checks the signature before parsing: broken JSON unsigned is 401, not a parse error', async () => {
    const res = await t
      .http()
      .post('/v1/webhooks/livekit')
      .set('X-Forwarded-For', newAddress())
      .set('Content-Type', 'application/json')
      .send('{"event": "room_started", "room": ');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'The webhook signature does not verify.' });
  });

  it('counts failed webhook signatures per route and address, never against the API routes', async () => {
    const address = newAddress();
    const org = await createOrganization(t);
    const post = (path: string) => t.http().post(path).set('X-Forwarded-For', address).set('Content-Type', 'application/json').send('{}');
    const first = await post('/v1/webhooks/livekit');
    expect(first.status).toBe(401);
    expect(first.headers.ratelimit).toMatch(/^"failed-auth";r=1;t=\d+$/);
    // Stripe's route has a budget of its own.
    const stripe = await post('/v1/webhooks/stripe');
    expect(stripe.status).toBe(400);
    expect(stripe.headers.ratelimit).toMatch(/^"failed-auth";r=1;t=\d+$/);
    expect((await post('/v1/webhooks/livekit')).status).toBe(401);
    const third = await post('/v1/webhooks/livekit');
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toMatch(/^\d+$/);
    // The API is not affected: a valid key goes through, and a wrong one starts its own count.
    expect((await t.http().get('/v1/users/me').set(org.auth).set('X-Forwarded-For', address)).status).toBe(200);
    const wrong = await t
      .http()
      .get('/v1/users/me')
      .set('Authorization', `Bearer trk_${'x'.repeat(40)}`)
      .set('X-Forwarded-For', address);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.ratelimit).toMatch(/^"failed-auth";r=1;t=\d+$/);
    // Other addresses are not affected either.
    expect((await t.http().post('/v1/webhooks/livekit').set('X-Forwarded-For', newAddress()).send('{}')).status).toBe(401);
  });
});
