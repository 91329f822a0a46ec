import type Stripe from 'stripe';
import { createOrganization, type TestOrganization } from '../support/factories';
import { settled } from '../support/rooms-harness';
import { startStripeDouble, type StripeDouble } from '../support/stripe-double';
import {
  checkoutSessionAsyncPaymentSucceededEvent,
  checkoutSessionCompletedEvent,
  completeSession,
  expireSession,
  settleAsyncPayment,
  signStripeEvent,
  signStripePayload,
  TEST_WEBHOOK_SECRET,
  type SignedWebhook,
} from '../support/stripe-webhooks';
import { startTestApp, type TestApp } from '../support/test-app';

interface HistoryLine {
  kind: string;
  occurred_at: string;
  delta_cents: number;
  provider_reference?: string | null;
}

describe('Stripe webhooks', () => {
  let stripe: StripeDouble;
  let t: TestApp;
  beforeAll(async () => {
    stripe = await startStripeDouble();
    t = await startTestApp({ STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, STRIPE_API_URL: stripe.url });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const drained = () => settled({ t } as never);
  const deliver = (signed: SignedWebhook) => t.http().post('/v1/webhooks/stripe').set(signed.headers).send(signed.body);
  const send = (event: { id: string; object: 'event' }) => deliver(signStripeEvent(event));

  async function balance(org: TestOrganization): Promise<number> {
    const res = await t.http().get('/v1/billing/credit').set(org.auth).expect(200);
    return res.body.credit_cents as number;
  }

  async function purchases(org: TestOrganization): Promise<HistoryLine[]> {
    const res = await t.http().get('/v1/billing/history').query({ limit: 200 }).set(org.auth).expect(200);
    return (res.body.items as HistoryLine[]).filter((line) => line.kind === 'purchase');
  }

  async function openSession(org: TestOrganization, cents: number): Promise<string> {
    const res = await t.http().post('/v1/billing/checkout').set(org.auth).send({ amount_cents: cents });
    expect(res.status).toBe(201);
    return res.body.checkout_id as string;
  }

  async function stored(eventId: string): Promise<number> {
    const [{ n }] = (await t.db.query(`SELECT count(*)::int AS n FROM inbound_events WHERE event_id = $1`, [eventId])) as { n: number }[];
    return n;
  }

  it('credits a paid checkout.session.completed with amount_total and lists it as a purchase', async () => {
    const org = await createOrganization(t);
    const sessionId = await openSession(org, 2500);
    const event = completeSession(stripe, sessionId, { paid: true });
    const before = Date.now();
    const res = await send(event);
    expect(res.status).toBe(200);
    expect(await stored(event.id)).toBe(1);
    await drained();

    expect(await balance(org)).toBe(10_000 + 2500);
    const lines = await purchases(org);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toEqual({
      kind: 'purchase',
      occurred_at: expect.any(String),
      delta_cents: 2500,
      currency: 'usd',
      provider_reference: sessionId,
    });
    expect(new Date(lines[0].occurred_at).getTime()).toBeGreaterThanOrEqual(before - 2000);
  });

  it('credits once when the same event is delivered twice, then five times at once', async () => {
    const org = await createOrganization(t);
    const event = completeSession(stripe, await openSession(org, 1500), { paid: true });
    await send(event).expect(200);
    await send(event).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000 + 1500);

    const answers = await Promise.all(Array.from({ length: 5 }, () => send(event)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    await drained();
    expect(await balance(org)).toBe(10_000 + 1500);
    expect(await purchases(org)).toHaveLength(1);
    expect(await stored(event.id)).toBe(1);
  });

  it('credits once when five deliveries of a fresh event arrive concurrently', async () => {
    const org = await createOrganization(t);
    const event = completeSession(stripe, await openSession(org, 900), { paid: true });
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(event)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    await drained();
    expect(await balance(org)).toBe(10_000 + 900);
    expect(await purchases(org)).toHaveLength(1);
  });

  it('credits a session once when both a paid completion and async_payment_succeeded arrive, in any order or at once', async () => {
    const org = await createOrganization(t);
    // Sequential: completed (paid), then async_payment_succeeded for the same session.
    const first = await openSession(org, 1000);
    const completed = completeSession(stripe, first, { paid: true });
    const succeeded = checkoutSessionAsyncPaymentSucceededEvent(completed.data.object);
    await send(completed).expect(200);
    await drained();
    await send(succeeded).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000 + 1000);

    // Concurrent, and with a second completion event id for the same session (as a Stripe resend can carry).
    const second = await openSession(org, 2000);
    const completed2 = completeSession(stripe, second, { paid: true });
    const resent = checkoutSessionCompletedEvent(completed2.data.object, 'paid');
    const succeeded2 = checkoutSessionAsyncPaymentSucceededEvent(completed2.data.object);
    const answers = await Promise.all([completed2, succeeded2, resent, succeeded2, completed2].map((e) => send(e)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await drained();
    expect(await balance(org)).toBe(10_000 + 1000 + 2000);
    expect((await purchases(org)).map((l) => [l.provider_reference, l.delta_cents]).sort()).toEqual(
      [
        [first, 1000],
        [second, 2000],
      ].sort(),
    );
  });

  it('adds nothing for an unpaid completion, then credits once when the delayed payment succeeds', async () => {
    const org = await createOrganization(t);
    const sessionId = await openSession(org, 3000);
    const unpaid = completeSession(stripe, sessionId, { paid: false });
    expect(unpaid.data.object.payment_status).toBe('unpaid');
    await send(unpaid).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000);
    expect(await purchases(org)).toHaveLength(0);

    const succeeded = settleAsyncPayment(stripe, sessionId, { succeeded: true });
    await send(succeeded).expect(200);
    await send(succeeded).expect(200);
    await send(unpaid).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000 + 3000);
    const lines = await purchases(org);
    expect(lines.map((l) => [l.provider_reference, l.delta_cents])).toEqual([[sessionId, 3000]]);
  });

  it('adds nothing for a failed delayed payment or an expired session', async () => {
    const org = await createOrganization(t);
    const failing = await openSession(org, 4000);
    await send(completeSession(stripe, failing, { paid: false })).expect(200);
    await send(settleAsyncPayment(stripe, failing, { succeeded: false })).expect(200);
    const abandoned = await openSession(org, 5000);
    await send(expireSession(stripe, abandoned)).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000);
    expect(await purchases(org)).toHaveLength(0);
  });

  it('credits the organization named by the session, not any other', async () => {
    const buyer = await createOrganization(t);
    const bystander = await createOrganization(t);
    await send(completeSession(stripe, await openSession(buyer, 1200), { paid: true })).expect(200);
    await drained();
    expect(await balance(buyer)).toBe(10_000 + 1200);
    expect(await balance(bystander)).toBe(10_000);
    expect(await purchases(bystander)).toHaveLength(0);
  });

  it('acknowledges event types it does not act on, and sessions of unknown organizations, without crediting', async () => {
    const org = await createOrganization(t);
    const other = {
      id: 'evt_other_type_1',
      object: 'event' as const,
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'pi_1', object: 'payment_intent', amount: 5000 } },
    };
    await deliver(signStripePayload(JSON.stringify(other))).expect(200);
    const session = completeSession(stripe, await openSession(org, 1000), { paid: true }).data.object;
    const stranger = checkoutSessionCompletedEvent(
      {
        ...session,
        id: 'cs_test_stranger',
        client_reference_id: '00000000-0000-4000-8000-000000000000',
        metadata: { organization_id: '00000000-0000-4000-8000-000000000000' },
      } as Stripe.Checkout.Session,
      'paid',
    );
    await send(stranger).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000);
    const [{ n }] = (await t.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE provider_reference = 'cs_test_stranger'`)) as {
      n: number;
    }[];
    expect(n).toBe(0);
  });

  it('answers a correctly signed payload that is not a Stripe event (no id or type) with 400 and a detail, storing nothing', async () => {
    const count = async () =>
      ((await t.db.query(`SELECT count(*)::int AS n FROM inbound_events WHERE provider = 'stripe'`)) as { n: number }[])[0].n;
    const before = await count();
    const bodies = [
      '[]',
      '{}',
      '42',
      'null',
      '"evt_1"',
      '{"object":"event","type":"checkout.session.completed","data":{}}',
      '{"id":"","object":"event","type":"checkout.session.completed","data":{}}',
      '{"id":42,"object":"event","type":"checkout.session.completed","data":{}}',
      '{"id":"evt_no_type_1","object":"event","data":{"object":{}}}',
      JSON.stringify({ id: `evt_${'x'.repeat(300)}`, object: 'event', type: 'payment_intent.succeeded', data: { object: {} } }),
      // Signed, but PostgreSQL cannot store it, or too deep to serialize.
      '{"id":"evt_nul_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"note":"a\\u0000b"}}}',
      '{"id":"evt_surrogate_1","object":"event","type":"payment_intent.succeeded","data":{"object":{"note":"\\ud800"}}}',
      `{"id":"evt_deep_1","object":"event","type":"payment_intent.succeeded","data":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ];
    for (const body of bodies) {
      const res = await deliver(signStripePayload(body));
      expect({ body: body.slice(0, 80), status: res.status }).toEqual({ body: body.slice(0, 80), status: 400 });
      expect(res.body).toEqual({ detail: expect.stringMatching(/Stripe event/) });
    }
    // Signed text that is not JSON at all (sent as text/plain, so the JSON body parser lets it through).
    const notJson = signStripePayload('not json');
    const res = await t
      .http()
      .post('/v1/webhooks/stripe')
      .set({ ...notJson.headers, 'content-type': 'text/plain' })
      .send(notJson.body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'The signed payload is not a Stripe event: it is not JSON.' });
    expect(await count()).toBe(before);

    // A genuine event is still taken afterwards.
    const org = await createOrganization(t);
    await send(completeSession(stripe, await openSession(org, 700), { paid: true })).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000 + 700);
  });

  it('marks a signed event that can never be applied as processed, credits nothing for it, and credits a later valid one', async () => {
    const org = await createOrganization(t);
    const sessionId = await openSession(org, 1800);
    const paid = completeSession(stripe, sessionId, { paid: true });
    const session = paid.data.object as unknown as Record<string, unknown>;
    const created = Math.floor(Date.now() / 1000);
    const malformed: Record<string, unknown>[] = [
      { id: 'evt_malformed_no_data', object: 'event', type: 'checkout.session.completed', created },
      { id: 'evt_malformed_empty_data', object: 'event', type: 'checkout.session.async_payment_succeeded', created, data: {} },
      { id: 'evt_malformed_null_object', object: 'event', type: 'checkout.session.completed', created, data: { object: null } },
      { id: 'evt_malformed_string_object', object: 'event', type: 'payment_intent.succeeded', created, data: { object: 'pi_1' } },
      {
        id: 'evt_malformed_empty_object',
        object: 'event',
        type: 'checkout.session.async_payment_succeeded',
        created,
        data: { object: {} },
      },
      {
        id: 'evt_malformed_no_amount',
        object: 'event',
        type: 'checkout.session.completed',
        created,
        data: { object: { ...session, amount_total: null } },
      },
      {
        id: 'evt_malformed_text_amount',
        object: 'event',
        type: 'checkout.session.async_payment_succeeded',
        created,
        data: { object: { ...session, amount_total: '1800' } },
      },
      { id: 'evt_malformed_no_created', object: 'event', type: 'checkout.session.completed', data: { object: session } },
      {
        id: 'evt_malformed_session_id',
        object: 'event',
        type: 'checkout.session.completed',
        created,
        data: { object: { ...session, id: { nested: true } } },
      },
    ];
    for (const event of malformed) await deliver(signStripePayload(JSON.stringify(event))).expect(200);
    await drained();
    const rows = (await t.db.query(`SELECT event_id, processed_at FROM inbound_events WHERE provider = 'stripe' AND event_id = ANY($1)`, [
      malformed.map((event) => event.id),
    ])) as { event_id: string; processed_at: Date | null }[];
    expect(rows.map((row) => [row.event_id, row.processed_at !== null]).sort()).toEqual(malformed.map((event) => [event.id, true]).sort());
    expect(await balance(org)).toBe(10_000);
    expect(await purchases(org)).toHaveLength(0);

    await send(paid).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000 + 1800);
    expect((await purchases(org)).map((line) => [line.provider_reference, line.delta_cents])).toEqual([[sessionId, 1800]]);
  });

  it('answers 400 with a detail and stores nothing for a bad, missing, stale or tampered signature', async () => {
    const org = await createOrganization(t);
    const sessionId = await openSession(org, 2000);
    const event = completeSession(stripe, sessionId, { paid: true });
    const good = signStripeEvent(event);
    const tamperedBody = good.body.replace('"amount_total": 2000', '"amount_total": 99999');
    expect(tamperedBody).not.toBe(good.body);
    const attempts: { name: string; headers: Record<string, string>; body: string }[] = [
      { name: 'wrong secret', headers: signStripeEvent(event, { secret: 'whsec_someone_else' }).headers, body: good.body },
      { name: 'missing header', headers: { 'content-type': 'application/json' }, body: good.body },
      { name: 'tampered body', headers: good.headers, body: tamperedBody },
      {
        name: 'stale timestamp',
        headers: signStripeEvent(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 }).headers,
        body: good.body,
      },
      { name: 'garbage header', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=deadbeef' }, body: good.body },
    ];
    for (const attempt of attempts) {
      const res = await t.http().post('/v1/webhooks/stripe').set(attempt.headers).send(attempt.body);
      expect({ name: attempt.name, status: res.status }).toEqual({ name: attempt.name, status: 400 });
      expect(res.body).toEqual({ detail: expect.any(String) });
      expect(await stored(event.id)).toBe(0);
    }
    await drained();
    expect(await balance(org)).toBe(10_000);

    // The genuine delivery still works afterwards, and credits the genuine amount.
    await deliver(good).expect(200);
    await drained();
    expect(await balance(org)).toBe(10_000 + 2000);
  });
});
