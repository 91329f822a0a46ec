/**
 * Stripe webhook helpers for tests: build Checkout Session events the way Stripe shapes them and
 * sign them with the SDK's own `generateTestHeaderString`, so `stripe.webhooks.constructEvent`
 * (with the same secret) accepts them.
 *
 * State transitions (`completeSession`, `settleAsyncPayment`, `expireSession`) mutate the session
 * held by the Stripe double, so a later `checkout.sessions.retrieve` sees the same state the event carries.
 */
import Stripe from 'stripe';
import { stripeId, type StripeDouble } from './stripe-double';

export const TEST_WEBHOOK_SECRET = 'whsec_test_translation_rooms_double_secret';

export type CheckoutSessionEvent =
  | Stripe.CheckoutSessionCompletedEvent
  | Stripe.CheckoutSessionAsyncPaymentSucceededEvent
  | Stripe.CheckoutSessionAsyncPaymentFailedEvent
  | Stripe.CheckoutSessionExpiredEvent;

export type CheckoutSessionEventType = CheckoutSessionEvent['type'];

export interface EventOptions {
  /** Event id; defaults to a fresh `evt_...`. Reuse an id to simulate Stripe redelivering an event. */
  id?: string;
  /** Epoch seconds; defaults to now. */
  created?: number;
  apiVersion?: string;
  previousAttributes?: Partial<Stripe.Checkout.Session>;
}

export interface SignedWebhook {
  body: string;
  headers: { 'stripe-signature': string; 'content-type': 'application/json' };
}

export interface SignOptions {
  secret?: string;
  /** Epoch seconds used in the `t=` part of the signature; defaults to now. */
  timestamp?: number;
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function withPaymentIntent(session: Stripe.Checkout.Session): Stripe.Checkout.Session {
  return session.payment_intent === null ? { ...session, payment_intent: stripeId('pi') } : session;
}

function withCustomerDetails(session: Stripe.Checkout.Session): Stripe.Checkout.Session {
  if (session.customer_details !== null) return session;
  return {
    ...session,
    customer_details: {
      address: { city: null, country: 'US', line1: null, line2: null, postal_code: '94103', state: null },
      business_name: null,
      email: session.customer_email ?? 'buyer@example.com',
      individual_name: null,
      name: 'Test Buyer',
      phone: null,
      tax_exempt: 'none',
      tax_ids: [],
    },
  };
}

/** The session as Stripe reports it once the customer submits the Checkout page. */
function completedSnapshot(session: Stripe.Checkout.Session, paymentStatus: 'paid' | 'unpaid'): Stripe.Checkout.Session {
  return withCustomerDetails(
    withPaymentIntent({ ...structuredClone(session), status: 'complete', payment_status: paymentStatus, url: null }),
  );
}

function envelope<T extends CheckoutSessionEventType>(type: T, object: Stripe.Checkout.Session, options: EventOptions) {
  return {
    id: options.id ?? stripeId('evt'),
    object: 'event' as const,
    api_version: options.apiVersion ?? Stripe.API_VERSION,
    created: options.created ?? nowSeconds(),
    data: options.previousAttributes === undefined ? { object } : { object, previous_attributes: options.previousAttributes },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** `checkout.session.completed`: paid (card) or unpaid (a delayed-notification method is still processing). */
export function checkoutSessionCompletedEvent(
  session: Stripe.Checkout.Session,
  paymentStatus: 'paid' | 'unpaid',
  options: EventOptions = {},
): Stripe.CheckoutSessionCompletedEvent {
  return envelope('checkout.session.completed', completedSnapshot(session, paymentStatus), options);
}

/** `checkout.session.async_payment_succeeded`: the delayed payment cleared. */
export function checkoutSessionAsyncPaymentSucceededEvent(
  session: Stripe.Checkout.Session,
  options: EventOptions = {},
): Stripe.CheckoutSessionAsyncPaymentSucceededEvent {
  return envelope('checkout.session.async_payment_succeeded', completedSnapshot(session, 'paid'), options);
}

/** `checkout.session.async_payment_failed`: the delayed payment failed; the session stays complete + unpaid. */
export function checkoutSessionAsyncPaymentFailedEvent(
  session: Stripe.Checkout.Session,
  options: EventOptions = {},
): Stripe.CheckoutSessionAsyncPaymentFailedEvent {
  return envelope('checkout.session.async_payment_failed', completedSnapshot(session, 'unpaid'), options);
}

/** `checkout.session.expired`: the session lapsed (or was expired through the API) without payment. */
export function checkoutSessionExpiredEvent(
  session: Stripe.Checkout.Session,
  options: EventOptions = {},
): Stripe.CheckoutSessionExpiredEvent {
  return envelope(
    'checkout.session.expired',
    { ...structuredClone(session), status: 'expired', payment_status: 'unpaid', url: null },
    options,
  );
}

/** Builds any of the four Checkout Session events by type (completed ⇒ paid unless `paymentStatus` says otherwise). */
export function checkoutSessionEvent(
  type: CheckoutSessionEventType,
  session: Stripe.Checkout.Session,
  options: EventOptions & { paymentStatus?: 'paid' | 'unpaid' } = {},
): CheckoutSessionEvent {
  switch (type) {
    case 'checkout.session.completed':
      return checkoutSessionCompletedEvent(session, options.paymentStatus ?? 'paid', options);
    case 'checkout.session.async_payment_succeeded':
      return checkoutSessionAsyncPaymentSucceededEvent(session, options);
    case 'checkout.session.async_payment_failed':
      return checkoutSessionAsyncPaymentFailedEvent(session, options);
    case 'checkout.session.expired':
      return checkoutSessionExpiredEvent(session, options);
  }
}

/**
 * Serialises an event exactly once and signs that string with the SDK's
 * `webhooks.generateTestHeaderString`. Send `body` verbatim (raw) — re-serialising breaks the signature.
 */
export function signStripeEvent(event: { id: string; object: 'event' }, options: SignOptions = {}): SignedWebhook {
  const body = JSON.stringify(event, null, 2);
  return signStripePayload(body, options);
}

/** Signs an arbitrary payload string (e.g. to produce a valid signature over a hand-crafted body). */
export function signStripePayload(body: string, options: SignOptions = {}): SignedWebhook {
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: options.secret ?? TEST_WEBHOOK_SECRET,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
  });
  return { body, headers: { 'stripe-signature': signature, 'content-type': 'application/json' } };
}

function sessionIn(double: StripeDouble, sessionId: string): Stripe.Checkout.Session {
  const session = double.sessions.get(sessionId);
  if (session === undefined) throw new Error(`Stripe double has no Checkout Session ${sessionId}`);
  return session;
}

function store(double: StripeDouble, snapshot: Stripe.Checkout.Session): void {
  double.sessions.set(snapshot.id, structuredClone(snapshot));
}

/**
 * Marks the session complete in the double (as if the customer paid on the hosted page) and returns
 * the `checkout.session.completed` event. `paid: false` models a delayed-notification payment method:
 * status `complete`, payment_status `unpaid`; follow with `settleAsyncPayment`.
 */
export function completeSession(
  double: StripeDouble,
  sessionId: string,
  { paid }: { paid: boolean },
  options: EventOptions = {},
): Stripe.CheckoutSessionCompletedEvent {
  const session = sessionIn(double, sessionId);
  if (session.status !== 'open') throw new Error(`Checkout Session ${sessionId} is ${String(session.status)}, not open`);
  const event = checkoutSessionCompletedEvent(session, paid ? 'paid' : 'unpaid', options);
  store(double, event.data.object);
  return event;
}

/** Settles a completed-but-unpaid session's delayed payment; returns async_payment_succeeded / _failed. */
export function settleAsyncPayment(
  double: StripeDouble,
  sessionId: string,
  { succeeded }: { succeeded: boolean },
  options: EventOptions = {},
): Stripe.CheckoutSessionAsyncPaymentSucceededEvent | Stripe.CheckoutSessionAsyncPaymentFailedEvent {
  const session = sessionIn(double, sessionId);
  if (session.status !== 'complete' || session.payment_status !== 'unpaid') {
    throw new Error(
      `Checkout Session ${sessionId} has no pending async payment (status ${String(session.status)}, payment_status ${session.payment_status})`,
    );
  }
  const event = succeeded
    ? checkoutSessionAsyncPaymentSucceededEvent(session, options)
    : checkoutSessionAsyncPaymentFailedEvent(session, options);
  store(double, event.data.object);
  return event;
}

/**
 * Lets an open session lapse in the double (as Stripe does at `expires_at`) and returns `checkout.session.expired`.
 * Also accepts an already-expired session (e.g. after `stripe.checkout.sessions.expire`) to build the event Stripe would send.
 */
export function expireSession(double: StripeDouble, sessionId: string, options: EventOptions = {}): Stripe.CheckoutSessionExpiredEvent {
  const session = sessionIn(double, sessionId);
  if (session.status !== 'open' && session.status !== 'expired') {
    throw new Error(`Checkout Session ${sessionId} is ${String(session.status)}; only open sessions expire`);
  }
  const event = checkoutSessionExpiredEvent(session, options);
  store(double, event.data.object);
  return event;
}
