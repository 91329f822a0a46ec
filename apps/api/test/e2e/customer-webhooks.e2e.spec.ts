import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createOrganization, type TestOrganization } from '../support/factories';
import { checkoutAndPay, startFullHarness, stripeWebhook, type FullHarness } from '../support/payments-harness';
import { createRoom, events, settled, webhook } from '../support/rooms-harness';
import { startTestApp } from '../support/test-app';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const RETRY_MS = 200;

describe('Customer webhooks', () => {
  let h: FullHarness;
  const receivers: WebhookReceiver[] = [];
  beforeAll(async () => {
    h = await startFullHarness({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE_MS: `${RETRY_MS},${RETRY_MS},${RETRY_MS}`,
      WEBHOOK_TIMEOUT_MS: '2000',
      // A window smaller than the 40 events the slow-endpoint test sends (the default is 64).
      WEBHOOK_ENDPOINT_CONCURRENCY: '16',
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h.close();
  });

  async function receiver(): Promise<WebhookReceiver> {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  }

  async function register(org: TestOrganization, url: string, body: Record<string, unknown> = {}) {
    const res = await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url, ...body });
    if (res.status !== 201) throw new Error(`endpoint registration failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; secret: string };
  }

  async function deliveries(org: TestOrganization, endpointId: string) {
    const res = await h.t.http().get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(org.auth);
    expect(res.status).toBe(200);
    return res.body.items as {
      id: string;
      event_id: string;
      event_type: string;
      status: string;
      attempts: number;
      last_status_code: number;
    }[];
  }

  async function waitForLog(
    org: TestOrganization,
    endpointId: string,
    predicate: (items: Awaited<ReturnType<typeof deliveries>>) => boolean,
  ) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const items = await deliveries(org, endpointId);
      if (predicate(items)) return items;
      if (Date.now() > deadline) throw new Error(`delivery log never matched: ${JSON.stringify(items)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const minutesAgo = (m: number) => Math.floor(Date.now() / 1000) - m * 60;
  const agent = (joinedAt: number) => ({ identity: 'translator-1', sid: 'PA_agent', kind: 'AGENT' as const, joinedAt: String(joinedAt) });
  const ann = (joinedAt: number) => ({ identity: 'ann', sid: 'PA_ann', joinedAt: String(joinedAt) });

  /** A call: Ann and the translator join, the translator leaves after a minute, Ann after `annMinutes`, the room ends. */
  async function call(org: TestOrganization, annMinutes: number) {
    const room = await createRoom(h, org);
    const t0 = minutesAgo(annMinutes + 1);
    // The call happened in the past: so did the room's creation (a room cannot finish before it was created).
    await h.t.db.query(`UPDATE rooms SET created_at = to_timestamp($2) WHERE id = $1`, [room.id, t0 - 1]);
    for (const event of [
      events.participantJoined(room.livekitName, ann(t0), { createdAt: t0 }),
      events.participantJoined(room.livekitName, agent(t0), { createdAt: t0 }),
      events.participantLeft(room.livekitName, agent(t0), { createdAt: t0 + 60 }),
      events.participantLeft(room.livekitName, ann(t0), { createdAt: t0 + annMinutes * 60 }),
      events.roomFinished(room.livekitName, { createdAt: t0 + annMinutes * 60 + 1 }),
    ]) {
      await webhook(h, event).expect(200);
      await settled(h);
    }
    return room;
  }

  it('sends every event type, each signed so that standardwebhooks verifies it', async () => {
    const org = await createOrganization(h.t, { creditCents: 100 });
    const r = await receiver();
    const endpoint = await register(org, r.url, { description: 'all of them' });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await h.t.http().put('/v1/billing/alerts').set(org.auth).send({ low_balance_cents: 90 }).expect(200);

    // The translator's minute (6) keeps 94 above 90; Ann's 40 minutes (120) take it to -26: low and exhausted.
    const room = await call(org, 40);
    await stripeWebhook(h, await checkoutAndPay(h, org, 1000)).expect(200);
    await settled(h);

    const types = [
      'room.started',
      'translator.joined',
      'translator.left',
      'credit.low',
      'credit.exhausted',
      'room.ended',
      'credit.purchased',
    ];
    const received = await r.waitFor((all) => types.every((type) => all.some((x) => x.event.type === type)));
    const verifier = new Webhook(endpoint.secret);
    for (const request of received) {
      const verified = verifier.verify(request.body, request.headers as Record<string, string>);
      expect(verified).toEqual(request.event);
      expect(request.headers['webhook-id']).toBe(request.event.id);
      expect(request.event.id).toMatch(/^evt_/);
    }
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        received[0].body,
        received[0].headers as Record<string, string>,
      ),
    ).toThrow();

    const byType = new Map(received.map((x) => [x.event.type, x.event.data]));
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth);
    expect(byType.get('room.ended')).toEqual(detail.body);
    expect(byType.get('translator.left')).toEqual(expect.objectContaining({ room_id: room.id, participant_identity: 'translator-1' }));
    expect(byType.get('credit.low')).toEqual({ credit_cents: -26, low_balance_cents: 90, currency: 'usd' });
    expect(byType.get('credit.exhausted')).toEqual({ credit_cents: -26, low_balance_cents: 90, currency: 'usd' });
    const history = await h.t.http().get('/v1/billing/history').set(org.auth);
    const purchaseLine = history.body.items.find((line: { kind: string }) => line.kind === 'purchase');
    expect(byType.get('credit.purchased')).toEqual(purchaseLine);
    expect(purchaseLine).toEqual(expect.objectContaining({ kind: 'purchase', delta_cents: 1000, currency: 'usd' }));
    expect(received.filter((x) => x.event.type === 'credit.low')).toHaveLength(1);
  });

  it('retries a failed attempt with the same webhook-id; the log shows it delivered after 2 attempts', async () => {
    const org = await createOrganization(h.t);
    const r = await receiver();
    r.reply = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    const endpoint = await register(org, r.url, { events: ['room.started'] });
    const room = await createRoom(h, org);
    await webhook(h, events.participantJoined(room.livekitName, 'ann')).expect(200);
    const [first, second] = await r.waitFor((all) => all.length >= 2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    const [line] = await waitForLog(org, endpoint.id, (items) => items[0]?.status === 'delivered');
    expect(line).toEqual(
      expect.objectContaining({
        event_id: first.event.id,
        event_type: 'room.started',
        status: 'delivered',
        attempts: 2,
        last_status_code: 200,
      }),
    );
    expect(Object.keys(line).sort()).toEqual(
      [
        'attempts',
        'created_at',
        'delivered_at',
        'event_id',
        'event_type',
        'id',
        'last_error',
        'last_status_code',
        'next_attempt_at',
        'status',
      ].sort(),
    );

    // A manual retry sends it once more, with the same id.
    const retried = await h.t.http().post(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${line.id}/retry`).set(org.auth);
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual(expect.objectContaining({ id: line.id, event_id: line.event_id, status: 'pending', attempts: 2 }));
    const third = (await r.waitFor((all) => all.length >= 3))[2];
    expect(third.headers['webhook-id']).toBe(first.headers['webhook-id']);
    await waitForLog(org, endpoint.id, (items) => items[0]?.attempts === 3 && items[0]?.status === 'delivered');
  });

  it('marks a delivery failed after the last attempt of the schedule', async () => {
    const org = await createOrganization(h.t);
    const r = await receiver();
    r.reply = () => ({ status: 503 });
    const endpoint = await register(org, r.url, { events: ['room.started'] });
    const room = await createRoom(h, org);
    await webhook(h, events.participantJoined(room.livekitName, 'ann')).expect(200);
    const [line] = await waitForLog(org, endpoint.id, (items) => items[0]?.status === 'failed');
    expect(line).toEqual(expect.objectContaining({ attempts: 4, last_status_code: 503, next_attempt_at: null }));
    expect(r.received).toHaveLength(4);
  });

  it("keeps a room's events in order at each endpoint, even while an earlier one is being retried", async () => {
    const org = await createOrganization(h.t);
    const r = await receiver();
    r.reply = (_request, index) => ({ status: index < 2 ? 500 : 200 });
    await register(org, r.url);
    await call(org, 3);
    const received = await r.waitFor((all) => all.some((x) => x.event.type === 'room.ended'));
    const roomEvents = received.map((x) => x.event.type).filter((type) => !type.startsWith('credit.'));
    expect(roomEvents).toEqual([
      'room.started',
      'room.started',
      'room.started',
      'participant.joined',
      'participant.joined',
      'translator.joined',
      'participant.left',
      'translator.left',
      'participant.left',
      'room.ended',
    ]);
  });

  it('sends one credit.low for a burst of concurrent call charges crossing the threshold', async () => {
    const org = await createOrganization(h.t, { creditCents: 100 });
    const r = await receiver();
    await register(org, r.url, { events: ['credit.low'] });
    await h.t.http().put('/v1/billing/alerts').set(org.auth).send({ low_balance_cents: 50 }).expect(200);
    const t0 = minutesAgo(2);
    const calls = [];
    for (let i = 0; i < 10; i++) {
      const room = await createRoom(h, org);
      const person = { identity: `p${i}`, sid: `PA_burst_${i}`, joinedAt: String(t0) };
      await webhook(h, events.participantJoined(room.livekitName, person, { createdAt: t0 })).expect(200);
      calls.push({ room, person });
    }
    await settled(h);
    // Ten 2-minute calls (6 cents each) end at once: 100 → 40.
    await Promise.all(
      calls.map(({ room, person }) => webhook(h, events.participantLeft(room.livekitName, person, { createdAt: t0 + 120 })).expect(200)),
    );
    await settled(h);
    expect((await h.t.http().get('/v1/billing/credit').set(org.auth)).body.credit_cents).toBe(40);
    const [{ n }] = (await h.t.db.query(
      `SELECT count(*)::int AS n FROM webhook_events WHERE organization_id = $1 AND type = 'credit.low'`,
      [org.organizationId],
    )) as { n: number }[];
    expect(n).toBe(1);
    const [low] = await r.waitFor((all) => all.length >= 1);
    // The balance the crossing charge left: below the threshold, at or above the final 40, and a whole
    // number of 6-cent calls below 100 (the burst may be applied in one batch or in several).
    const data = low.event.data as { credit_cents: number };
    expect(low.event.data).toEqual({ credit_cents: expect.any(Number), low_balance_cents: 50, currency: 'usd' });
    expect(data.credit_cents).toBeLessThan(50);
    expect(data.credit_cents).toBeGreaterThanOrEqual(40);
    expect((100 - data.credit_cents) % 6).toBe(0);
  });

  it('keeps at most 16 deliveries in flight to a slow endpoint, and a slow endpoint does not hold back the others', async () => {
    const org = await createOrganization(h.t);
    const slow = await receiver();
    slow.reply = () => ({ status: 200, delayMs: 700 });
    const fast = await receiver();
    await register(org, slow.url, { events: ['room.started'] });
    await register(org, fast.url, { events: ['room.started'] });
    const rooms = [];
    for (let i = 0; i < 40; i++) rooms.push(await createRoom(h, org));
    await Promise.all(rooms.map((room, i) => webhook(h, events.participantJoined(room.livekitName, `p${i}`)).expect(200)));
    await fast.waitFor((all) => all.length === 40);
    // 40 deliveries of 700 ms, 16 at a time, take three rounds: the fast endpoint got all of them first.
    expect(slow.received.filter((r) => !r.abandoned).length - slow.inFlight).toBeLessThan(40);
    await slow.waitFor((all) => all.length === 40 && slow.inFlight === 0, 15_000);
    expect(slow.maxInFlight).toBeGreaterThan(1);
    expect(slow.maxInFlight).toBeLessThanOrEqual(16);
    expect(new Set(slow.received.map((r) => r.event.id)).size).toBe(40);
  });

  it('stops sending to a deleted endpoint', async () => {
    const org = await createOrganization(h.t);
    const failing = await receiver();
    failing.reply = () => ({ status: 500 });
    const barrier = await receiver();
    const doomed = await register(org, failing.url, { events: ['room.started'] });
    await register(org, barrier.url, { events: ['room.started'] });
    const first = await createRoom(h, org);
    await webhook(h, events.participantJoined(first.livekitName, 'ann')).expect(200);
    await failing.waitFor((all) => all.length >= 1);
    await h.t.http().delete(`/v1/webhook-endpoints/${doomed.id}`).set(org.auth).expect(204);
    const sent = failing.received.length;

    const second = await createRoom(h, org);
    await webhook(h, events.participantJoined(second.livekitName, 'bob')).expect(200);
    await barrier.waitFor((all) => all.length >= 2);
    // Several retry intervals later, still nothing more.
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 5));
    expect(failing.received).toHaveLength(sent);
    const [{ id: doomedDelivery, status }] = (await h.t.db.query(`SELECT id, status FROM webhook_deliveries WHERE endpoint_id = $1`, [
      doomed.id,
    ])) as { id: string; status: string }[];
    expect(status).toBe('failed');
    // A deleted endpoint's deliveries cannot be sent again.
    const retried = await h.t.http().post(`/v1/webhook-endpoints/${doomed.id}/deliveries/${doomedDelivery}/retry`).set(org.auth);
    expect([retried.status, retried.body.detail]).toEqual([404, 'Webhook endpoint not found.']);
    expect((await h.t.http().get(`/v1/webhook-endpoints/${doomed.id}/deliveries`).set(org.auth)).status).toBe(404);
    const list = await h.t.http().get('/v1/webhook-endpoints').set(org.auth);
    expect(list.body.items.map((e: { id: string }) => e.id)).not.toContain(doomed.id);
  });

  it("answers 404 for another organization's endpoints and deliveries", async () => {
    const owner = await createOrganization(h.t);
    const other = await createOrganization(h.t);
    const r = await receiver();
    const endpoint = await register(owner, r.url, { events: ['room.started'] });
    const room = await createRoom(h, owner);
    await webhook(h, events.participantJoined(room.livekitName, 'ann')).expect(200);
    const [line] = await waitForLog(owner, endpoint.id, (items) => items[0]?.status === 'delivered');
    const base = `/v1/webhook-endpoints/${endpoint.id}`;
    expect((await h.t.http().get(`${base}/deliveries`).set(other.auth)).status).toBe(404);
    expect((await h.t.http().post(`${base}/deliveries/${line.id}/retry`).set(other.auth)).status).toBe(404);
    const unknown = await h.t.http().post(`${base}/deliveries/${randomUUID()}/retry`).set(owner.auth);
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'Delivery not found.']);
    expect((await h.t.http().delete(base).set(other.auth)).status).toBe(404);
    expect((await h.t.http().get('/v1/webhook-endpoints').set(other.auth)).body.items).toEqual([]);
    const own = await h.t.http().get('/v1/webhook-endpoints').set(owner.auth);
    expect(own.body.items).toEqual([
      {
        id: endpoint.id,
        url: r.url,
        events: ['room.started'],
        description: null,
        enabled: true,
        created_at: expect.any(String),
      },
    ]);
  });

  it('validates the endpoint: event types, description length and URL shape', async () => {
    const org = await createOrganization(h.t);
    const res = await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: 'https://example.com/x', events: ['room.started', 'room.exploded'], description: 'd'.repeat(201) });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((i: { loc: unknown[]; type: string }) => [i.loc, i.type])).toEqual([
      [['body', 'events', 1], 'enum'],
      [['body', 'description'], 'string_too_long'],
    ]);
    const notUrl = await h.t.http().post('/v1/webhook-endpoints').set(org.auth).send({ url: 'not a url' });
    expect(notUrl.status).toBe(422);
    expect(notUrl.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'url'], type: 'url_parsing' }));
    const ftp = await h.t.http().post('/v1/webhook-endpoints').set(org.auth).send({ url: 'ftp://example.com/x' });
    expect(ftp.body.detail[0]).toEqual(expect.objectContaining({ loc: ['body', 'url'], type: 'url_scheme' }));
  });
});

describe('Customer webhook endpoints without WEBHOOK_ALLOW_PRIVATE_URLS', () => {
  it('refuses http URLs and hosts on loopback, private, link-local or metadata addresses', async () => {
    const t = await startTestApp();
    try {
      const org = await createOrganization(t);
      for (const [url, type] of [
        ['http://example.com/hooks', 'url_scheme'],
        ['https://127.0.0.1/hooks', 'value_error'],
        ['https://localhost:8443/hooks', 'value_error'],
        ['https://10.1.2.3/hooks', 'value_error'],
        ['https://192.168.0.10/hooks', 'value_error'],
        ['https://169.254.169.254/latest/meta-data', 'value_error'],
        ['https://[::1]/hooks', 'value_error'],
        ['https://[fd00:ec2::254]/hooks', 'value_error'],
        ['https://[::ffff:127.0.0.1]/hooks', 'value_error'],
        ['https://[::127.0.0.1]/hooks', 'value_error'],
        ['https://[2002:7f00:1::]/hooks', 'value_error'],
        ['https://[64:ff9b::10.0.0.1]/hooks', 'value_error'],
        ['https://[2001:0:7f00:1::]/hooks', 'value_error'],
      ]) {
        const res = await t.http().post('/v1/webhook-endpoints').set(org.auth).send({ url });
        expect({ url, status: res.status, loc: res.body.detail?.[0]?.loc, type: res.body.detail?.[0]?.type }).toEqual({
          url,
          status: 422,
          loc: ['body', 'url'],
          type,
        });
      }
      expect((await t.http().get('/v1/webhook-endpoints').set(org.auth)).body.items).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
