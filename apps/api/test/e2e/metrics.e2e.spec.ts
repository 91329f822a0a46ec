import { MetricsServer } from '../../src/modules/metrics/metrics.server';
import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startTestApp } from '../support/test-app';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const TOKEN = 'metrics-token-for-tests';

/** The value of one series in the Prometheus text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('Metrics', () => {
  let h: RoomsHarness;
  let r: WebhookReceiver;
  beforeAll(async () => {
    h = await startRoomsHarness({ METRICS_TOKEN: TOKEN, METRICS_PORT: '0', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    await r.close();
    await h.close();
  });

  const scrape = async () => {
    const res = await h.t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.text;
  };

  it('refuses /metrics without the token or with a wrong one', async () => {
    const none = await h.t.http().get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ detail: expect.any(String) });
    expect((await h.t.http().get('/metrics').set('Authorization', 'Bearer wrong')).status).toBe(401);
    const org = await createOrganization(h.t);
    expect((await h.t.http().get('/metrics').set(org.auth)).status).toBe(401);
  });

  it('counts requests by route template, method and status, with their latency', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const labels = { route: '/v1/rooms/:room_id', method: 'GET', status: '200' };
    const before = await scrape();
    for (let i = 0; i < 3; i++) await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200);
    await h.t.http().get('/v1/rooms/not-a-uuid').set(org.auth).expect(422);
    const after = await scrape();
    expect(sample(after, 'http_requests_total', labels) - sample(before, 'http_requests_total', labels)).toBe(3);
    expect(
      sample(after, 'http_request_duration_seconds_count', labels) - sample(before, 'http_request_duration_seconds_count', labels),
    ).toBe(3);
    expect(sample(after, 'http_requests_total', { ...labels, status: '422' })).toBeGreaterThanOrEqual(1);
    expect(after).not.toContain(room.id);
    expect(sample(after, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('follows inbound webhook events, rooms, connections, queues and customer deliveries', async () => {
    const org = await createOrganization(h.t);
    await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: r.url, events: ['room.started'] })
      .expect(201);
    const before = await scrape();
    const room = await createRoom(h, org);
    await webhook(h, events.participantJoined(room.livekitName, { identity: 'ann', sid: 'PA_m' })).expect(200);
    await settled(h);
    await r.waitFor((all) => all.length >= 1);
    const deadline = Date.now() + 10_000;
    let after = await scrape();
    while (sample(after, 'customer_webhook_deliveries_total', { outcome: 'delivered' }) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await scrape();
    }
    const moved = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(moved('inbound_webhook_events_total', { provider: 'livekit', outcome: 'stored' })).toBe(1);
    expect(moved('inbound_webhook_events_total', { provider: 'livekit', outcome: 'applied' })).toBe(1);
    expect(moved('customer_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(moved('rooms_active')).toBe(1);
    expect(moved('connections_open')).toBe(1);
    expect(after).toContain('bullmq_queue_jobs{queue="livekit-events",state="waiting"}');
    expect(after).toContain('inbound_webhook_oldest_unapplied_seconds{provider="livekit"} 0');
  });

  it('serves the same without authentication on METRICS_PORT', async () => {
    const port = h.t.app.get(MetricsServer).port;
    expect(port).toEqual(expect.any(Number));
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('http_requests_total');
    expect((await fetch(`http://127.0.0.1:${port}/v1/users/me`)).status).toBe(404);
  });
});

describe('Metrics without METRICS_TOKEN', () => {
  it('has no /metrics on the API port', async () => {
    const t = await startTestApp();
    try {
      expect((await t.http().get('/metrics')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
