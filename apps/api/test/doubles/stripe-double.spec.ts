/** Self-test of the Stripe double, driven by the real `stripe` SDK. */
import Stripe from 'stripe';
import { decodeStripeForm, startStripeDouble, type StripeDouble } from '../support/stripe-double';
import {
  TEST_WEBHOOK_SECRET,
  checkoutSessionEvent,
  completeSession,
  expireSession,
  settleAsyncPayment,
  signStripeEvent,
} from '../support/stripe-webhooks';

const KEY = 'sk_test_double_123';

describe('Stripe double', () => {
  let double: StripeDouble;
  let stripe: Stripe;

  beforeAll(async () => {
    double = await startStripeDouble();
    stripe = new Stripe(KEY, { ...double.stripeConfig, maxNetworkRetries: 0, telemetry: false });
  });
  afterAll(async () => {
    await double.close();
  });
  beforeEach(() => double.reset());

  const createParams = (): Stripe.Checkout.SessionCreateParams => ({
    mode: 'payment',
    line_items: [
      {
        quantity: 1,
        price_data: { currency: 'usd', unit_amount: 2500, product_data: { name: 'Translation credit ($25.00)' } },
      },
    ],
    client_reference_id: 'org_42',
    metadata: { organization_id: 'org_42', credit_minor: '2500' },
    success_url: 'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'https://app.example.test/billing/cancel',
  });

  it('decodes bracketed form keys into nested objects and arrays', () => {
    expect(decodeStripeForm('a[b][0][c]=1&a[b][1][c]=x%20y&metadata[0]=zero&expand[0]=line_items&u=%7BCHECKOUT_SESSION_ID%7D')).toEqual({
      a: { b: [{ c: '1' }, { c: 'x y' }] },
      metadata: { '0': 'zero' },
      expand: ['line_items'],
      u: '{CHECKOUT_SESSION_ID}',
    });
  });

  it('creates and retrieves a Checkout Session through the SDK, recording the decoded call', async () => {
    const created = await stripe.checkout.sessions.create(createParams());

    expect(created).toMatchObject({
      object: 'checkout.session',
      mode: 'payment',
      amount_total: 2500,
      amount_subtotal: 2500,
      currency: 'usd',
      client_reference_id: 'org_42',
      metadata: { organization_id: 'org_42', credit_minor: '2500' },
      payment_status: 'unpaid',
      status: 'open',
      livemode: false,
      success_url: 'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://app.example.test/billing/cancel',
    });
    expect(created.id).toMatch(/^cs_test_[A-Za-z0-9]+$/);
    expect(created.url).toBe(`https://checkout.stripe.com/c/pay/${created.id}`);
    expect(created.created).toBeGreaterThan(0);
    expect(created.expires_at).toBeGreaterThan(created.created);

    const [call] = double.calls;
    expect(call).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', status: 200 });
    expect(call?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(call?.rawBody).toContain('line_items[0][price_data][unit_amount]=2500');
    expect(call?.body).toEqual({
      mode: 'payment',
      line_items: [
        { quantity: '1', price_data: { currency: 'usd', unit_amount: '2500', product_data: { name: 'Translation credit ($25.00)' } } },
      ],
      client_reference_id: 'org_42',
      metadata: { organization_id: 'org_42', credit_minor: '2500' },
      success_url: 'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://app.example.test/billing/cancel',
    });

    const retrieved = await stripe.checkout.sessions.retrieve(created.id);
    expect(retrieved).toEqual(created);
    expect(double.callsTo('GET', `/v1/checkout/sessions/${created.id}`)).toHaveLength(1);

    const expanded = await stripe.checkout.sessions.retrieve(created.id, { expand: ['line_items'] });
    expect(expanded.line_items?.data).toEqual([
      expect.objectContaining({
        object: 'item',
        quantity: 1,
        amount_total: 2500,
        currency: 'usd',
        description: 'Translation credit ($25.00)',
      }),
    ]);
    expect(double.sessions.get(created.id)?.status).toBe('open');
  });

  it('answers Stripe-shaped errors for unknown sessions and missing params', async () => {
    await expect(stripe.checkout.sessions.retrieve('cs_test_nope')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
    });
    const { line_items: _omit, ...noItems } = createParams();
    await expect(stripe.checkout.sessions.create(noItems)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      param: 'line_items',
    });
  });

  it('expires an open session and refuses to expire it twice', async () => {
    const created = await stripe.checkout.sessions.create(createParams());
    const expired = await stripe.checkout.sessions.expire(created.id);
    expect(expired).toMatchObject({ id: created.id, status: 'expired', url: null });
    expect(double.callsTo('POST', `/v1/checkout/sessions/${created.id}/expire`)).toHaveLength(1);
    await expect(stripe.checkout.sessions.expire(created.id)).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  });

  it('rejects a bad API key with StripeAuthenticationError', async () => {
    const bad = new Stripe('pk_test_not_a_secret', { ...double.stripeConfig, maxNetworkRetries: 0 });
    const error: unknown = await bad.checkout.sessions.create(createParams()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(error).toMatchObject({ statusCode: 401, message: 'Invalid API Key provided' });
    expect(double.sessions.size).toBe(0);
    expect(double.calls[0]?.status).toBe(401);
  });

  it('answers 401 with the Stripe error body when the Authorization header is missing, 404 for unknown routes', async () => {
    const missing = await fetch(`${double.url}/v1/checkout/sessions`, { method: 'POST', body: 'mode=payment' });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });

    const unknown = await fetch(`${double.url}/v1/customers`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(double.calls.map((c) => [c.method, c.path, c.status])).toEqual([
      ['POST', '/v1/checkout/sessions', 401],
      ['GET', '/v1/customers', 404],
    ]);
  });

  it('replays the response for a repeated Idempotency-Key and refuses the key with other params', async () => {
    const first = await stripe.checkout.sessions.create(createParams(), { idempotencyKey: 'topup-1' });
    const again = await stripe.checkout.sessions.create(createParams(), { idempotencyKey: 'topup-1' });
    expect(again.id).toBe(first.id);
    expect(double.sessions.size).toBe(1);
    expect(double.calls.map((c) => c.headers['idempotency-key'])).toEqual(['topup-1', 'topup-1']);

    await expect(
      stripe.checkout.sessions.create({ ...createParams(), client_reference_id: 'org_other' }, { idempotencyKey: 'topup-1' }),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it('injects faults that surface as API errors', async () => {
    double.failNext(1);
    await expect(stripe.checkout.sessions.create(createParams())).rejects.toMatchObject({
      type: 'StripeAPIError',
      statusCode: 500,
    });
    double.failNext(1, 429);
    await expect(stripe.checkout.sessions.retrieve('cs_test_any')).rejects.toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(double.sessions.size).toBe(0);

    // Faults are consumed; the next call is served normally.
    await expect(stripe.checkout.sessions.create(createParams())).resolves.toMatchObject({ status: 'open' });
  });

  it('lets the SDK retry an injected 500 with the same idempotency key', async () => {
    const retrying = new Stripe(KEY, { ...double.stripeConfig, maxNetworkRetries: 1 });
    double.failNext(1, 503);
    const created = await retrying.checkout.sessions.create(createParams());
    const posts = double.callsTo('POST', '/v1/checkout/sessions');
    expect(posts.map((c) => c.status)).toEqual([503, 200]);
    expect(posts[0]?.headers['idempotency-key']).toMatch(/^stripe-node-retry-/);
    expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
    expect(double.sessions.get(created.id)).toBeDefined();
  });

  describe('webhooks', () => {
    it('signs events that constructEvent accepts, and a tampered body is rejected', async () => {
      const session = await stripe.checkout.sessions.create(createParams());
      const event = completeSession(double, session.id, { paid: true });
      expect(event).toMatchObject({
        object: 'event',
        type: 'checkout.session.completed',
        livemode: false,
        api_version: Stripe.API_VERSION,
        data: {
          object: {
            id: session.id,
            status: 'complete',
            payment_status: 'paid',
            metadata: { organization_id: 'org_42', credit_minor: '2500' },
          },
        },
      });
      expect(event.id).toMatch(/^evt_/);

      const signed = signStripeEvent(event);
      expect(signed.headers['content-type']).toBe('application/json');
      const verified = stripe.webhooks.constructEvent(signed.body, signed.headers['stripe-signature'], TEST_WEBHOOK_SECRET);
      expect(verified).toEqual(event);

      const tampered = signed.body.replace('"amount_total": 2500', '"amount_total": 999999');
      expect(tampered).not.toBe(signed.body);
      expect(() => stripe.webhooks.constructEvent(tampered, signed.headers['stripe-signature'], TEST_WEBHOOK_SECRET)).toThrow(
        Stripe.errors.StripeSignatureVerificationError,
      );
      expect(() => stripe.webhooks.constructEvent(signed.body, signed.headers['stripe-signature'], 'whsec_wrong')).toThrow(
        Stripe.errors.StripeSignatureVerificationError,
      );

      // The double's state follows the event.
      await expect(stripe.checkout.sessions.retrieve(session.id)).resolves.toMatchObject({
        status: 'complete',
        payment_status: 'paid',
        url: null,
      });
    });

    it('models delayed payments: completed+unpaid, then async succeeded or failed', async () => {
      const a = await stripe.checkout.sessions.create(createParams());
      const b = await stripe.checkout.sessions.create(createParams());

      expect(completeSession(double, a.id, { paid: false }).data.object).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
      completeSession(double, b.id, { paid: false });

      const ok = settleAsyncPayment(double, a.id, { succeeded: true });
      expect(ok).toMatchObject({ type: 'checkout.session.async_payment_succeeded', data: { object: { payment_status: 'paid' } } });
      const ko = settleAsyncPayment(double, b.id, { succeeded: false });
      expect(ko).toMatchObject({
        type: 'checkout.session.async_payment_failed',
        data: { object: { status: 'complete', payment_status: 'unpaid' } },
      });

      for (const e of [ok, ko]) {
        const signed = signStripeEvent(e);
        expect(stripe.webhooks.constructEvent(signed.body, signed.headers['stripe-signature'], TEST_WEBHOOK_SECRET).type).toBe(e.type);
      }
      expect(() => settleAsyncPayment(double, a.id, { succeeded: true })).toThrow(/no pending async payment/);
    });

    it('builds expired events and generic events by type', async () => {
      const s = await stripe.checkout.sessions.create(createParams());
      const expired = expireSession(double, s.id);
      expect(expired).toMatchObject({
        type: 'checkout.session.expired',
        data: { object: { status: 'expired', payment_status: 'unpaid' } },
      });
      expect(double.sessions.get(s.id)?.status).toBe('expired');
      expect(() => completeSession(double, s.id, { paid: true })).toThrow(/not open/);

      const unpaid = checkoutSessionEvent('checkout.session.completed', s, { paymentStatus: 'unpaid', id: 'evt_fixed' });
      expect(unpaid).toMatchObject({ id: 'evt_fixed', data: { object: { payment_status: 'unpaid', status: 'complete' } } });
      // Builders never mutate the input session.
      expect(s.status).toBe('open');
    });
  });
});
