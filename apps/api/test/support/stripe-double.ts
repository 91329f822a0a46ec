/**
 * A protocol-level double of the Stripe API, for tests only.
 *
 * Longer than ~300 lines on purpose: the Checkout Session endpoints, their form decoding, Stripe's
 * errors and the recorded calls work on one in-memory Stripe account; a split would pass that state
 * between files.
 *
 * It speaks the wire format the official `stripe` SDK uses (form-encoded POST bodies with
 * bracketed keys, JSON responses, Stripe-shaped errors) for the Checkout Session endpoints:
 *
 *   POST /v1/checkout/sessions
 *   GET  /v1/checkout/sessions/:id            (supports expand[]=line_items)
 *   GET  /v1/checkout/sessions/:id/line_items
 *   POST /v1/checkout/sessions/:id/expire
 *
 * It records every call and answers the way Stripe would; it never decides product behaviour.
 *
 * Point the SDK at it with:
 *   new Stripe('sk_test_x', { ...double.stripeConfig, maxNetworkRetries: 0 })
 * i.e. `{ host: '127.0.0.1', port: <ephemeral>, protocol: 'http' }` (StripeConfig option names).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { listenLocally } from './listen-locally';
import Stripe from 'stripe';

// ---------------------------------------------------------------------------------------------
// Form decoding (mirror of the SDK's stringifyRequestData in node_modules/stripe/cjs/utils.js:
// `a[b][0][c]=v`, arrays as indexed keys, brackets left unencoded, values encodeURIComponent'd).
// ---------------------------------------------------------------------------------------------

export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

type Draft = string | DraftObject;
interface DraftObject {
  [key: string]: Draft;
}

function decodeComponent(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function splitKey(rawKey: string): string[] {
  const key = decodeComponent(rawKey);
  const open = key.indexOf('[');
  if (open <= 0) return [key];
  const parts = [key.slice(0, open)];
  const re = /\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(key.slice(open))) !== null) parts.push(m[1] ?? '');
  return parts;
}

function finalize(draft: Draft, parentKey: string | undefined): FormValue {
  if (typeof draft === 'string') return draft;
  const keys = Object.keys(draft);
  const out: FormObject = {};
  for (const k of keys) {
    const child = draft[k];
    if (child !== undefined) out[k] = finalize(child, k);
  }
  // Objects keyed 0..n-1 are arrays (`line_items[0]`, `expand[0]`), except metadata maps.
  const isIndexed = keys.length > 0 && parentKey !== 'metadata' && keys.every((k) => /^\d+$/.test(k));
  if (isIndexed) {
    const sorted = keys.map(Number).sort((a, b) => a - b);
    if (sorted.every((n, i) => n === i)) return sorted.map((n) => out[String(n)] as FormValue);
  }
  return out;
}

/** Decodes an `application/x-www-form-urlencoded` body (or query string) into a nested object. */
export function decodeStripeForm(body: string): FormObject {
  const root: DraftObject = Object.create(null) as DraftObject;
  if (body.length === 0) return {};
  for (const pair of body.split('&')) {
    if (pair.length === 0) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const value = eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
    const path = splitKey(rawKey);
    let node: DraftObject = root;
    for (let i = 0; i < path.length; i++) {
      let segment = path[i] ?? '';
      if (segment === '__proto__' || segment === 'constructor' || segment === 'prototype') break;
      if (segment === '' && i > 0) segment = String(Object.keys(node).length); // `a[]=x` appends
      if (i === path.length - 1) {
        node[segment] = value;
      } else {
        const next = node[segment];
        if (next === undefined || typeof next === 'string') {
          const created: DraftObject = Object.create(null) as DraftObject;
          node[segment] = created;
          node = created;
        } else {
          node = next;
        }
      }
    }
  }
  const result = finalize(root, undefined);
  return typeof result === 'object' && !Array.isArray(result) ? result : {};
}

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

export interface RecordedCall {
  method: string;
  /** Path without the query string, e.g. `/v1/checkout/sessions/cs_test_123`. */
  path: string;
  /** Decoded form body (POST) — `{}` for GET. */
  body: FormObject;
  /** Decoded query string (GET params such as `expand`). */
  query: FormObject;
  /** Raw body as received. */
  rawBody: string;
  /** Request headers, lower-cased names. */
  headers: Record<string, string>;
  /** HTTP status the double answered with. */
  status: number;
}

export interface FailNextOptions {
  /** Sets `Stripe-Should-Retry: true|false` on the injected failure (the SDK honours it). Unset by default. */
  shouldRetry?: boolean;
  /** Stripe error `type`; defaults from the status (500 → api_error, 429 → rate_limit_error, 4xx → invalid_request_error). */
  type?: string;
  message?: string;
  code?: string;
}

export interface StripeDoubleOptions {
  /** Clock in epoch milliseconds; defaults to Date.now. */
  now?: () => number;
}

export interface StripeDoubleClientConfig {
  host: string;
  port: number;
  protocol: 'http';
}

export interface StripeDouble {
  /** Base URL, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Spread into `new Stripe(key, { ...double.stripeConfig })`. */
  readonly stripeConfig: StripeDoubleClientConfig;
  /** Every request received, in order (including failed/unauthorised ones). */
  readonly calls: RecordedCall[];
  /** Checkout Sessions by id — the double's state. Tests may read it; helpers in stripe-webhooks.ts mutate it. */
  readonly sessions: Map<string, Stripe.Checkout.Session>;
  /** Line items by session id (returned when `line_items` is expanded). */
  readonly lineItems: Map<string, Stripe.LineItem[]>;
  /** Clears calls, sessions, line items, idempotency cache and pending faults. */
  reset(): void;
  /**
   * The next `n` requests (any endpoint) answer `status` with a Stripe-shaped error instead of being served.
   * Injected failures are not stored against the Idempotency-Key, so an SDK retry with the same key succeeds.
   * Note: the SDK retries 5xx/409 by default (maxNetworkRetries defaults to 2) unless `shouldRetry: false`.
   */
  failNext(n: number, status?: number, options?: FailNextOptions): void;
  /** Calls matching method and path (string = exact path or prefix ending in '*', or RegExp). */
  callsTo(method: string, path: string | RegExp): RecordedCall[];
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function stripeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let s = '';
  for (const b of bytes) s += ALPHABET[b % ALPHABET.length];
  return `${prefix}_${s}`;
}

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly extra: { code?: string; param?: string } = {},
  ) {
    super(message);
  }

  toBody(): { error: Record<string, string> } {
    const error: Record<string, string> = { type: this.type, message: this.message };
    if (this.extra.code !== undefined) error.code = this.extra.code;
    if (this.extra.param !== undefined) error.param = this.extra.param;
    if (this.extra.code !== undefined) error.doc_url = `https://stripe.com/docs/error-codes/${this.extra.code.replace(/_/g, '-')}`;
    return { error };
  }
}

function missing(param: string): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', `Missing required param: ${param}.`, { code: 'parameter_missing', param });
}

function invalid(param: string, message: string): StripeApiError {
  return new StripeApiError(400, 'invalid_request_error', message, { code: 'parameter_invalid', param });
}

function isFormObject(v: FormValue | undefined): v is FormObject {
  return typeof v === 'object' && !Array.isArray(v);
}

function str(obj: FormObject, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function int(obj: FormObject, key: string, param: string): number | undefined {
  const v = str(obj, key);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v))
    throw new StripeApiError(400, 'invalid_request_error', `Invalid integer: ${v}`, { code: 'parameter_invalid_integer', param });
  return Number(v);
}

function list(obj: FormObject, key: string): FormValue[] {
  const v = obj[key];
  if (Array.isArray(v)) return v;
  if (isFormObject(v)) return Object.values(v);
  if (typeof v === 'string' && v !== '') return [v];
  return [];
}

function stringMap(obj: FormObject, key: string): Record<string, string> {
  const v = obj[key];
  const out: Record<string, string> = {};
  if (!isFormObject(v)) return out;
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string' && val !== '') out[k] = val; // empty value unsets a key, as in Stripe
  }
  return out;
}

function defaultErrorType(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 402) return 'card_error';
  if (status === 409) return 'idempotency_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function defaultErrorMessage(status: number): string {
  if (status === 429) return 'Too many requests hit the API too quickly.';
  if (status >= 500) return 'An unknown error occurred. Please try again later.';
  return 'The request could not be processed (injected failure).';
}

// ---------------------------------------------------------------------------------------------
// Checkout Session construction
// ---------------------------------------------------------------------------------------------

interface BuiltSession {
  session: Stripe.Checkout.Session;
  lineItems: Stripe.LineItem[];
}

function buildLineItems(params: FormObject, nowSec: number): Stripe.LineItem[] {
  const raw = list(params, 'line_items');
  return raw.map((entry, i): Stripe.LineItem => {
    const p = `line_items[${i}]`;
    if (!isFormObject(entry)) throw invalid(p, `Invalid object: ${p}`);
    const quantity = int(entry, 'quantity', `${p}[quantity]`);
    if (quantity === undefined) throw missing(`${p}[quantity]`);
    if (quantity < 1) throw invalid(`${p}[quantity]`, `This value must be greater than or equal to 1.`);
    const priceId = str(entry, 'price');
    if (priceId !== undefined) {
      throw new StripeApiError(400, 'invalid_request_error', `No such price: '${priceId}'`, {
        code: 'resource_missing',
        param: `${p}[price]`,
      });
    }
    const pd = entry.price_data;
    if (!isFormObject(pd)) throw missing(`${p}[price_data]`);
    const currency = str(pd, 'currency')?.toLowerCase();
    if (currency === undefined) throw missing(`${p}[price_data][currency]`);
    let unitAmount = int(pd, 'unit_amount', `${p}[price_data][unit_amount]`);
    const decimal = str(pd, 'unit_amount_decimal');
    if (unitAmount === undefined && decimal !== undefined) unitAmount = Math.round(Number(decimal));
    if (unitAmount === undefined) throw missing(`${p}[price_data][unit_amount]`);
    if (unitAmount < 0) throw invalid(`${p}[price_data][unit_amount]`, 'This value must be greater than or equal to 0.');
    const productData = pd.product_data;
    const productId = str(pd, 'product');
    let name: string | undefined;
    if (isFormObject(productData)) {
      name = str(productData, 'name');
      if (name === undefined) throw missing(`${p}[price_data][product_data][name]`);
    } else if (productId === undefined) {
      throw missing(`${p}[price_data][product_data]`);
    }
    const price: Stripe.Price = {
      id: stripeId('price'),
      object: 'price',
      active: false,
      billing_scheme: 'per_unit',
      created: nowSec,
      currency,
      custom_unit_amount: null,
      livemode: false,
      lookup_key: null,
      metadata: {},
      nickname: null,
      product: productId ?? stripeId('prod', 14),
      recurring: null,
      tax_behavior: 'unspecified',
      tiers_mode: null,
      transform_quantity: null,
      type: 'one_time',
      unit_amount: unitAmount,
      unit_amount_decimal: String(unitAmount),
    };
    const total = unitAmount * quantity;
    return {
      id: stripeId('li'),
      object: 'item',
      adjustable_quantity: null,
      amount_discount: 0,
      amount_subtotal: total,
      amount_tax: 0,
      amount_total: total,
      currency,
      description: name ?? null,
      metadata: {},
      price,
      quantity,
    };
  });
}

function buildSession(params: FormObject, nowMs: number): BuiltSession {
  const nowSec = Math.floor(nowMs / 1000);
  const mode = str(params, 'mode');
  if (mode === undefined) throw missing('mode');
  if (mode !== 'payment' && mode !== 'setup' && mode !== 'subscription') {
    throw invalid('mode', `Invalid mode: must be one of payment, setup, or subscription`);
  }
  if (mode !== 'payment') {
    throw invalid('mode', `The Stripe double only implements mode=payment (got ${mode}).`);
  }
  const uiMode = str(params, 'ui_mode') ?? 'hosted';
  if (uiMode !== 'hosted') throw invalid('ui_mode', `The Stripe double only implements ui_mode=hosted (got ${uiMode}).`);
  const lineItems = buildLineItems(params, nowSec);
  if (lineItems.length === 0) throw missing('line_items');
  const currencies = new Set(lineItems.map((li) => li.currency));
  if (currencies.size > 1) throw invalid('line_items', 'All line items must use the same currency.');
  const currency = lineItems[0]?.currency ?? null;
  const amount = lineItems.reduce((sum, li) => sum + li.amount_total, 0);

  const successUrl = str(params, 'success_url') ?? null;
  const cancelUrl = str(params, 'cancel_url') ?? null;
  for (const [param, value] of [
    ['success_url', successUrl],
    ['cancel_url', cancelUrl],
  ] as const) {
    if (value !== null && !/^https?:\/\/[^\s]+$/i.test(value)) throw invalid(param, `Not a valid URL`);
  }

  const expiresAt = int(params, 'expires_at', 'expires_at') ?? nowSec + 24 * 60 * 60;
  if (expiresAt < nowSec + 30 * 60) {
    throw invalid('expires_at', 'The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.');
  }
  if (expiresAt > nowSec + 24 * 60 * 60) {
    throw invalid('expires_at', 'The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.');
  }
  const clientReferenceId = str(params, 'client_reference_id') ?? null;
  if (clientReferenceId !== null && clientReferenceId.length > 200) {
    throw invalid('client_reference_id', 'client_reference_id must be at most 200 characters.');
  }
  const metadata = stringMap(params, 'metadata');
  const customerEmail = str(params, 'customer_email') ?? null;
  const customer = str(params, 'customer') ?? null;
  const locale = (str(params, 'locale') ?? null) as Stripe.Checkout.Session.Locale | null;
  const paymentMethodTypes = list(params, 'payment_method_types').filter((v): v is string => typeof v === 'string');

  const id = stripeId('cs_test', 58);
  const session = {
    id,
    object: 'checkout.session',
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: str(params, 'allow_promotion_codes') === 'true' ? true : null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: cancelUrl,
    client_reference_id: clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: nowSec,
    currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer,
    customer_account: null,
    customer_creation: customer === null ? 'if_required' : null,
    customer_details:
      customerEmail === null
        ? null
        : {
            address: null,
            business_name: null,
            email: customerEmail,
            individual_name: null,
            name: null,
            phone: null,
            tax_exempt: 'none',
            tax_ids: null,
          },
    customer_email: customerEmail,
    discounts: [],
    expires_at: expiresAt,
    invoice: null,
    invoice_creation: {
      enabled: false,
      invoice_data: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: null,
        metadata: {},
        rendering_options: null,
      },
    },
    livemode: false,
    locale,
    metadata,
    mode: 'payment',
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_configuration_details: paymentMethodTypes.length > 0 ? null : { id: stripeId('pmc'), parent: null },
    payment_method_options: {},
    payment_method_types: paymentMethodTypes.length > 0 ? paymentMethodTypes : ['card'],
    payment_status: 'unpaid',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: `https://checkout.stripe.com/c/pay/${id}`,
    wallet_options: null,
  } satisfies Stripe.Checkout.Session;
  return { session, lineItems };
}

function lineItemList(sessionId: string, items: Stripe.LineItem[]): Stripe.ApiList<Stripe.LineItem> {
  return { object: 'list', data: structuredClone(items), has_more: false, url: `/v1/checkout/sessions/${sessionId}/line_items` };
}

function wantsExpand(params: FormObject, field: string): boolean {
  return list(params, 'expand').some((v) => v === field);
}

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

interface IdempotentEntry {
  method: string;
  path: string;
  rawBody: string;
  status: number;
  body: string;
}

interface PendingFault {
  status: number;
  options: FailNextOptions;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function flattenHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export async function startStripeDouble(options: StripeDoubleOptions = {}): Promise<StripeDouble> {
  const now = options.now ?? (() => Date.now());
  const calls: RecordedCall[] = [];
  const sessions = new Map<string, Stripe.Checkout.Session>();
  const lineItems = new Map<string, Stripe.LineItem[]>();
  const idempotency = new Map<string, IdempotentEntry>();
  const faults: PendingFault[] = [];

  const getSession = (id: string): Stripe.Checkout.Session => {
    const s = sessions.get(id);
    if (s === undefined) {
      throw new StripeApiError(404, 'invalid_request_error', `No such checkout.session: '${id}'`, {
        code: 'resource_missing',
        param: 'session',
      });
    }
    return s;
  };

  const render = (session: Stripe.Checkout.Session, params: FormObject): Stripe.Checkout.Session => {
    const copy = structuredClone(session);
    if (wantsExpand(params, 'line_items')) copy.line_items = lineItemList(session.id, lineItems.get(session.id) ?? []);
    return copy;
  };

  const route = (method: string, path: string, body: FormObject, query: FormObject): Reply => {
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const built = buildSession(body, now());
      sessions.set(built.session.id, built.session);
      lineItems.set(built.session.id, built.lineItems);
      return { status: 200, body: render(built.session, body) };
    }
    let m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (m !== null && method === 'GET') {
      return { status: 200, body: render(getSession(decodeComponent(m[1] ?? '')), query) };
    }
    m = /^\/v1\/checkout\/sessions\/([^/]+)\/line_items$/.exec(path);
    if (m !== null && method === 'GET') {
      const session = getSession(decodeComponent(m[1] ?? ''));
      return { status: 200, body: lineItemList(session.id, lineItems.get(session.id) ?? []) };
    }
    m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (m !== null && method === 'POST') {
      const session = getSession(decodeComponent(m[1] ?? ''));
      if (session.status !== 'open') {
        throw new StripeApiError(400, 'invalid_request_error', `Only Checkout Sessions with a status in ["open"] can be expired.`);
      }
      session.status = 'expired';
      session.url = null;
      return { status: 200, body: render(session, body) };
    }
    throw new StripeApiError(
      404,
      'invalid_request_error',
      `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    );
  };

  const handle = async (req: http.IncomingMessage): Promise<Reply> => {
    const method = (req.method ?? 'GET').toUpperCase();
    const target = new URL(req.url ?? '/', 'http://double.invalid');
    const path = target.pathname;
    const rawBody = await readBody(req);
    const headers = flattenHeaders(req.headers);
    const body = method === 'GET' ? {} : decodeStripeForm(rawBody);
    const query = decodeStripeForm(target.search.replace(/^\?/, ''));
    const call: RecordedCall = { method, path, body, query, rawBody, headers, status: 0 };
    calls.push(call);

    const reply = ((): Reply => {
      const fault = faults.shift();
      if (fault !== undefined) {
        const { status, options: o } = fault;
        const err = new StripeApiError(status, o.type ?? defaultErrorType(status), o.message ?? defaultErrorMessage(status), {
          code: o.code,
        });
        const extraHeaders: Record<string, string> = {};
        if (o.shouldRetry !== undefined) extraHeaders['stripe-should-retry'] = String(o.shouldRetry);
        return { status, body: err.toBody(), headers: extraHeaders };
      }

      const auth = headers['authorization'] ?? '';
      const key = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? '';
      if (!key.startsWith('sk_')) {
        return { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } } };
      }

      const idemKey = method === 'POST' ? headers['idempotency-key'] : undefined;
      if (idemKey !== undefined) {
        const scoped = `${key}\u0000${idemKey}`;
        const prior = idempotency.get(scoped);
        if (prior !== undefined) {
          if (prior.method !== method || prior.path !== path) {
            const err = new StripeApiError(
              400,
              'idempotency_error',
              `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${prior.method} ${prior.path}' vs '${method} ${path}'). Try using a key other than '${idemKey}' if you meant to execute a different request.`,
            );
            return { status: 400, body: err.toBody() };
          }
          if (prior.rawBody !== rawBody) {
            const err = new StripeApiError(
              400,
              'idempotency_error',
              `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
            );
            return { status: 400, body: err.toBody() };
          }
          return {
            status: prior.status,
            body: JSON.parse(prior.body) as unknown,
            headers: { 'idempotent-replayed': 'true', 'original-request': 'req_replayed' },
          };
        }
        try {
          const fresh = route(method, path, body, query);
          // Stripe only stores results of requests that started executing; we store successes.
          idempotency.set(scoped, { method, path, rawBody, status: fresh.status, body: JSON.stringify(fresh.body) });
          return { ...fresh, headers: { ...fresh.headers, 'idempotency-key': idemKey } };
        } catch (e) {
          if (e instanceof StripeApiError) return { status: e.status, body: e.toBody() };
          throw e;
        }
      }
      try {
        return route(method, path, body, query);
      } catch (e) {
        if (e instanceof StripeApiError) return { status: e.status, body: e.toBody() };
        throw e;
      }
    })();
    call.status = reply.status;
    return reply;
  };

  const server = http.createServer((req, res) => {
    handle(req).then(
      (reply) => {
        const payload = JSON.stringify(reply.body, null, 2);
        res.writeHead(reply.status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'request-id': stripeId('req', 14),
          'stripe-version': Stripe.API_VERSION,
          ...reply.headers,
        });
        res.end(payload);
      },
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        const payload = JSON.stringify({ error: { type: 'api_error', message: `Stripe double crashed: ${message}` } });
        res.writeHead(500, { 'content-type': 'application/json', 'stripe-should-retry': 'false' });
        res.end(payload);
      },
    );
  });

  const baseUrl = await listenLocally(server);
  const url = new URL(baseUrl);
  const host = url.hostname;
  const port = Number(url.port);

  return {
    url: baseUrl,
    host,
    port,
    stripeConfig: { host, port, protocol: 'http' },
    calls,
    sessions,
    lineItems,
    reset() {
      calls.length = 0;
      sessions.clear();
      lineItems.clear();
      idempotency.clear();
      faults.length = 0;
    },
    failNext(n: number, status = 500, failOptions: FailNextOptions = {}) {
      for (let i = 0; i < n; i++) faults.push({ status, options: failOptions });
    },
    callsTo(method: string, path: string | RegExp) {
      return calls.filter((c) => {
        if (c.method !== method.toUpperCase()) return false;
        if (path instanceof RegExp) return path.test(c.path);
        return path.endsWith('*') ? c.path.startsWith(path.slice(0, -1)) : c.path === path;
      });
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
