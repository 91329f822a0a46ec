import { DatabaseClient } from '../../src/database/database.client';
import { issueKinds } from '../support/issue-kinds';
import { Client } from 'pg';
import type { Server } from 'node:http';
import net from 'node:net';
import { listenLocally } from '../support/listen-locally';
import { LedgerService } from '../../src/modules/billing/ledger.service';
import { createOrganization, type TestOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startStripeDouble, type StripeDouble } from '../support/stripe-double';
import { completeSession, signStripeEvent, TEST_WEBHOOK_SECRET } from '../support/stripe-webhooks';
import { startTestApp } from '../support/test-app';

interface ParticipantUsage {
  id: number;
  participant_identity: string;
  participant_kind: string | null;
  languages: string[] | null;
  joined_at: string;
  left_at: string | null;
  connection_minutes: number | null;
  charged_cents: number | null;
}

interface RoomUsage {
  id: string;
  name: string;
  streaming_mode: string | null;
  started_at: string | null;
  ended_at: string | null;
  total_connection_minutes: number;
  total_charged_cents: number;
  participants?: ParticipantUsage[];
}

interface HistoryLine {
  kind: string;
  occurred_at: string;
  delta_cents: number;
  currency: string;
  room?: RoomUsage | null;
  provider_reference?: string | null;
}

interface HistoryPage {
  items: HistoryLine[];
  limit: number;
  offset: number;
  next_offset: number | null;
}

/** One connection of a call: seconds relative to the call's t0; `leave` absent while still connected. */
interface Conn {
  identity: string;
  sid: string;
  join: number;
  leave?: number;
  agent?: boolean;
}

const SUCCESS_ENV = 'https://app.example.test/billing/done?from=checkout';
const PLACEHOLDER = 'session_id={CHECKOUT_SESSION_ID}';
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const nowSeconds = () => Math.floor(Date.now() / 1000);
const sortedKeys = (o: object) => Object.keys(o).sort();

describe('billing', () => {
  let stripe: StripeDouble;
  let h: RoomsHarness;
  beforeAll(async () => {
    stripe = await startStripeDouble();
    h = await startRoomsHarness({
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      CHECKOUT_SUCCESS_URL: SUCCESS_ENV,
    });
  });
  afterAll(async () => {
    await h.close();
    await stripe.close();
  });

  const credit = async (org: TestOrganization) => {
    const res = await h.t.http().get('/v1/billing/credit').set(org.auth);
    expect(res.status).toBe(200);
    return res.body as { credit_cents: number };
  };
  const balance = async (org: TestOrganization) => (await credit(org)).credit_cents;
  const checkout = (org: TestOrganization, body: Record<string, unknown>) =>
    h.t.http().post('/v1/billing/checkout').set(org.auth).send(body);
  const history = (org: TestOrganization, query: Record<string, string | number> = {}) =>
    h.t.http().get('/v1/billing/history').query(query).set(org.auth);
  const sessionPosts = () => stripe.callsTo('POST', '/v1/checkout/sessions').length;

  async function allLines(org: TestOrganization, limit: number, expand?: string): Promise<HistoryLine[]> {
    const lines: HistoryLine[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const res = await history(org, { limit, offset, ...(expand ? { expand } : {}) });
      expect(res.status).toBe(200);
      const page = res.body as HistoryPage;
      expect(page.limit).toBe(limit);
      expect(page.offset).toBe(offset);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      // next_offset is offset + limit while more lines exist, else null (a short page is always the last).
      if (page.items.length < limit) expect(page.next_offset).toBeNull();
      else expect([offset + limit, null]).toContain(page.next_offset);
      lines.push(...page.items);
      if (page.next_offset === null) break;
      expect(lines.length).toBeLessThan(1000);
      offset = page.next_offset;
    }
    return lines;
  }

  /** Buys credit the way a customer does: checkout, pay on Stripe's page, Stripe's signed webhook. */
  async function buy(org: TestOrganization, cents: number): Promise<string> {
    const res = await checkout(org, { amount_cents: cents });
    expect(res.status).toBe(201);
    const event = completeSession(stripe, res.body.checkout_id as string, { paid: true });
    const { body, headers } = signStripeEvent(event);
    await h.t.http().post('/v1/webhooks/stripe').set(headers).send(body).expect(200);
    await settled(h);
    return res.body.checkout_id as string;
  }

  /** Plays a call through LiveKit webhooks: joins, then the leaves of those who left. */
  async function call(livekitName: string, t0: number, conns: Conn[]): Promise<void> {
    const participant = (c: Conn) => ({
      identity: c.identity,
      sid: c.sid,
      joinedAt: String(t0 + c.join),
      ...(c.agent ? { kind: 'AGENT' as const } : {}),
    });
    for (const c of conns) await webhook(h, events.participantJoined(livekitName, participant(c), { createdAt: t0 + c.join })).expect(200);
    for (const c of conns) {
      if (c.leave !== undefined)
        await webhook(h, events.participantLeft(livekitName, participant(c), { createdAt: t0 + c.leave })).expect(200);
    }
    await settled(h);
  }

  /** A room in `org` with one finished call: returns the room. */
  async function roomWithCall(org: TestOrganization, t0: number, conns: Conn[]) {
    const room = await createRoom(h, org);
    await call(room.livekitName, t0, conns);
    return room;
  }

  async function grantAt(org: TestOrganization, cents: number, at: Date): Promise<void> {
    const ledger = h.t.app.get(LedgerService);
    await h.t.app
      .get(DatabaseClient)
      .transaction((tx) => ledger.credit(tx, { organizationId: org.organizationId, kind: 'grant', cents, occurredAt: at }));
  }

  describe('GET /v1/billing/credit', () => {
    it('returns the balance, the per-class rates and the top-up range', async () => {
      const org = await createOrganization(h.t, { creditCents: 1234 });
      const res = await h.t.http().get('/v1/billing/credit').set(org.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        credit_cents: 1234,
        low_balance_cents: null,
        currency: 'usd',
        rates: [
          { participant_class: 'participant', cents_per_minute: 3 },
          { participant_class: 'translator', cents_per_minute: 6 },
        ],
        min_topup_cents: 500,
        max_topup_cents: 100000,
      });
    });

    it('reports 0 for an organization that never had credit, and each organization its own balance', async () => {
      const empty = await createOrganization(h.t, { creditCents: 0 });
      const rich = await createOrganization(h.t, { creditCents: 50_000 });
      expect(await balance(empty)).toBe(0);
      expect(await balance(rich)).toBe(50_000);
    });

    it('answers 401 with a detail without credentials or with an unknown key', async () => {
      for (const headers of [{}, { Authorization: 'Bearer trk_notarealkeynotarealkeynotarealkey00' }]) {
        const res = await h.t.http().get('/v1/billing/credit').set(headers);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: expect.any(String) });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });
  });

  describe('POST /v1/billing/checkout', () => {
    it('creates a Stripe Checkout Session for the organization and returns its id and URL, adding no credit yet', async () => {
      const org = await createOrganization(h.t);
      const before = sessionPosts();
      const res = await checkout(org, {
        amount_cents: 2500,
        success_url: 'https://shop.example.test/thanks',
        cancel_url: 'https://shop.example.test/cart',
      });
      expect(res.status).toBe(201);
      expect(sortedKeys(res.body as object)).toEqual(['checkout_id', 'checkout_url']);
      const session = stripe.sessions.get(res.body.checkout_id as string);
      expect(session).toBeDefined();
      expect(res.body.checkout_url).toBe(session?.url);
      expect(session).toMatchObject({
        mode: 'payment',
        amount_total: 2500,
        currency: 'usd',
        client_reference_id: org.organizationId,
        metadata: expect.objectContaining({ organization_id: org.organizationId }),
        success_url: `https://shop.example.test/thanks?${PLACEHOLDER}`,
        cancel_url: 'https://shop.example.test/cart',
      });

      const calls = stripe.callsTo('POST', '/v1/checkout/sessions');
      expect(calls).toHaveLength(before + 1);
      const sent = calls[calls.length - 1].body;
      expect(sent.client_reference_id).toBe(org.organizationId);
      expect(sent.metadata).toMatchObject({ organization_id: org.organizationId });
      expect(sent.success_url).toBe(`https://shop.example.test/thanks?${PLACEHOLDER}`);
      expect(sent.cancel_url).toBe('https://shop.example.test/cart');
      expect(calls[calls.length - 1].headers.authorization).toBe('Bearer sk_test_x');

      expect(await balance(org)).toBe(10_000);
      const lines = (await history(org)).body as HistoryPage;
      expect(lines.items.map((l) => l.kind)).toEqual(['grant']);
    });

    it('appends session_id with & to a success_url that has a query, and before a fragment', async () => {
      const org = await createOrganization(h.t);
      const cases: [string, string][] = [
        ['https://shop.example.test/thanks?ref=mail&x=1', `https://shop.example.test/thanks?ref=mail&x=1&${PLACEHOLDER}`],
        ['http://localhost:8080/billing', `http://localhost:8080/billing?${PLACEHOLDER}`],
        ['https://shop.example.test/app#/billing', `https://shop.example.test/app?${PLACEHOLDER}#/billing`],
      ];
      for (const [given, expected] of cases) {
        const res = await checkout(org, { amount_cents: 1000, success_url: given });
        expect(res.status).toBe(201);
        expect(stripe.sessions.get(res.body.checkout_id as string)?.success_url).toBe(expected);
      }
    });

    it("uses the deployment's pages when the request names none (CHECKOUT_SUCCESS_URL honoured)", async () => {
      const org = await createOrganization(h.t);
      const res = await checkout(org, { amount_cents: 700 });
      expect(res.status).toBe(201);
      const session = stripe.sessions.get(res.body.checkout_id as string);
      expect(session?.success_url).toBe(`${SUCCESS_ENV}&${PLACEHOLDER}`);
      expect(session?.amount_total).toBe(700);
      // No CHECKOUT_CANCEL_URL in this deployment: the API's own cancel page.
      const cancel = new URL(session?.cancel_url ?? '');
      expect(cancel.protocol).toMatch(/^https?:$/);
      const page = await h.t.http().get(cancel.pathname);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
    });

    it('accepts the ends of the top-up range and answers 400 outside it, sending nothing to Stripe', async () => {
      const org = await createOrganization(h.t);
      // An integer beyond 2^53 is still an integer, only out of range.
      for (const amount of [499, 100_001, 0, -500, 1e20, -1e20, 2 ** 53 + 2]) {
        const before = sessionPosts();
        const res = await checkout(org, { amount_cents: amount });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ detail: expect.stringContaining('500') });
        expect(sessionPosts()).toBe(before);
      }
      for (const amount of [500, 100_000]) {
        const res = await checkout(org, { amount_cents: amount });
        expect(res.status).toBe(201);
        expect(stripe.sessions.get(res.body.checkout_id as string)?.amount_total).toBe(amount);
      }
      expect(await balance(org)).toBe(10_000);
    });

    it('answers 400 for a JSON integer too large for a double to hold exactly, as for any out-of-range amount', async () => {
      const org = await createOrganization(h.t);
      const before = sessionPosts();
      for (const raw of ['{"amount_cents": 100000000000000000000}', '{"amount_cents": 9007199254740993}', '{"amount_cents": -1e25}']) {
        const res = await h.t.http().post('/v1/billing/checkout').set(org.auth).set('Content-Type', 'application/json').send(raw);
        expect({ raw, status: res.status }).toEqual({ raw, status: 400 });
        expect(res.body).toEqual({ detail: expect.stringContaining('100000') });
      }
      expect(sessionPosts()).toBe(before);
      expect(await balance(org)).toBe(10_000);
    });

    it('answers 422 naming each invalid field, and sends nothing to Stripe', async () => {
      const org = await createOrganization(h.t);
      const base = 'https://shop.example.test/';
      const tooLong = base + 'a'.repeat(2084 - base.length);
      const cases: [Record<string, unknown>, [string, string, unknown, Record<string, unknown>][]][] = [
        [{}, [['body.amount_cents', 'missing', {}, {}]]],
        [{ amount_cents: 1000.5 }, [['body.amount_cents', 'int_from_float', 1000.5, {}]]],
        [{ amount_cents: '1000' }, [['body.amount_cents', 'int_parsing', '1000', {}]]],
        [
          { amount_cents: 1000, success_url: 'ftp://files.example.test/done' },
          [['body.success_url', 'url_parsing', 'ftp://files.example.test/done', {}]],
        ],
        [{ amount_cents: 1000, success_url: 'not a url' }, [['body.success_url', 'url_parsing', 'not a url', {}]]],
        [
          { amount_cents: 1000, success_url: tooLong },
          [['body.success_url', 'string_too_long', tooLong.slice(0, 200), { max_length: 2083 }]],
        ],
        [{ amount_cents: 1000, success_url: '' }, [['body.success_url', 'string_too_short', '', { min_length: 1 }]]],
        [{ amount_cents: 1000, cancel_url: 'javascript:alert(1)' }, [['body.cancel_url', 'url_parsing', 'javascript:alert(1)', {}]]],
        [
          { amount_cents: 'lots', success_url: 42, cancel_url: '' },
          [
            ['body.amount_cents', 'int_parsing', 'lots', {}],
            ['body.success_url', 'string_type', 42, {}],
            ['body.cancel_url', 'string_too_short', '', { min_length: 1 }],
          ],
        ],
      ];
      const before = sessionPosts();
      for (const [body, expected] of cases) {
        const res = await checkout(org, body);
        expect({ body, status: res.status }).toEqual({ body, status: 422 });
        const detail = res.body.detail as { loc: string[]; msg: string; type: string; input: unknown; ctx: Record<string, unknown> }[];
        expect(detail.map((d) => [d.loc.join('.'), d.type, d.input, d.ctx])).toEqual(expected);
        for (const d of detail) expect(d.msg).toEqual(expect.any(String));
      }
      expect(sessionPosts()).toBe(before);

      const longest = base + 'a'.repeat(2083 - base.length);
      expect((await checkout(org, { amount_cents: 1000, success_url: longest, cancel_url: longest })).status).toBe(201);
    });

    it('answers 503 with a detail when Stripe fails, creates no session and changes no balance', async () => {
      const org = await createOrganization(h.t);
      stripe.failNext(1, 500, { shouldRetry: false });
      const res = await checkout(org, { amount_cents: 2000 });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: expect.stringMatching(/\w+ \w+/) });
      expect(res.headers['retry-after']).toBe('5');
      expect([...stripe.sessions.values()].filter((s) => s.client_reference_id === org.organizationId)).toHaveLength(0);
      expect(await balance(org)).toBe(10_000);

      stripe.failNext(1, 400, { message: 'Invalid currency' });
      const rejected = await checkout(org, { amount_cents: 2000 });
      expect(rejected.status).toBe(503);
      expect(rejected.body).toEqual({ detail: expect.any(String) });
      expect(await balance(org)).toBe(10_000);
    });

    it('survives a transient Stripe error by retrying, creating exactly one session', async () => {
      const org = await createOrganization(h.t);
      stripe.failNext(1, 500);
      const res = await checkout(org, { amount_cents: 2000 });
      expect(res.status).toBe(201);
      expect([...stripe.sessions.values()].filter((s) => s.client_reference_id === org.organizationId).map((s) => s.id)).toEqual([
        res.body.checkout_id,
      ]);
    });

    it('answers 503 with Retry-After when Stripe accepts the connection but never answers, and changes no balance', async () => {
      const silent = net.createServer(() => undefined); // takes each connection, never writes a byte
      const silentUrl = await listenLocally(silent as unknown as Server);
      const t = await startTestApp({ STRIPE_SECRET_KEY: 'sk_test_doubles', STRIPE_API_URL: silentUrl, STRIPE_TIMEOUT_MS: '500' });
      try {
        const org = await createOrganization(t);
        const res = await t.http().post('/v1/billing/checkout').set(org.auth).send({ amount_cents: 1000 });
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ detail: expect.stringMatching(/payment provider is unavailable/) });
        expect(res.headers['retry-after']).toBe('5');
        expect((await t.http().get('/v1/billing/credit').set(org.auth)).body.credit_cents).toBe(10_000);
      } finally {
        await t.close();
        silent.close();
      }
    });

    it('answers 503 with a clear detail on a deployment without STRIPE_SECRET_KEY', async () => {
      const t = await startTestApp({ STRIPE_SECRET_KEY: '', STRIPE_API_URL: stripe.url });
      try {
        const org = await createOrganization(t);
        const before = stripe.calls.length;
        const res = await t.http().post('/v1/billing/checkout').set(org.auth).send({ amount_cents: 1000 });
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ detail: expect.stringMatching(/not configured|STRIPE_SECRET_KEY/i) });
        expect(stripe.calls.length).toBe(before);
        const creditRes = await t.http().get('/v1/billing/credit').set(org.auth);
        expect(creditRes.body.credit_cents).toBe(10_000);
      } finally {
        await t.close();
      }
    });

    it('checks a checkout without STRIPE_SECRET_KEY in order: 422 for an invalid body, 400 out of range, then 503', async () => {
      const t = await startTestApp({ STRIPE_SECRET_KEY: '', STRIPE_API_URL: stripe.url });
      try {
        const org = await createOrganization(t);
        const before = stripe.calls.length;
        const post = (body: Record<string, unknown>) => t.http().post('/v1/billing/checkout').set(org.auth).send(body);

        const invalid = await post({ amount_cents: 1000.5, success_url: 'not a url' });
        expect(invalid.status).toBe(422);
        expect(issueKinds(invalid)).toEqual([
          ['body.amount_cents', 'int_from_float'],
          ['body.success_url', 'url_parsing'],
        ]);
        expect((await post({})).status).toBe(422);
        expect((await post({ amount_cents: '1000' })).status).toBe(422);

        for (const amount of [499, 100_001, 0, -500, 1e20]) {
          const res = await post({ amount_cents: amount });
          expect({ amount, status: res.status }).toEqual({ amount, status: 400 });
          expect(res.body).toEqual({ detail: expect.stringContaining('500') });
        }

        for (const amount of [500, 100_000]) {
          const res = await post({ amount_cents: amount });
          expect({ amount, status: res.status }).toEqual({ amount, status: 503 });
          expect(res.body).toEqual({ detail: expect.stringMatching(/not configured|STRIPE_SECRET_KEY/i) });
        }
        expect(stripe.calls.length).toBe(before);
        expect((await t.http().get('/v1/billing/credit').set(org.auth)).body.credit_cents).toBe(10_000);
      } finally {
        await t.close();
      }
    });

    it('answers 401 without credentials', async () => {
      const res = await h.t.http().post('/v1/billing/checkout').send({ amount_cents: 1000 });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    });
  });

  describe('GET /v1/billing/history', () => {
    it('lists purchases, grants and calls newest first; provider_reference only on credit lines', async () => {
      const org = await createOrganization(h.t, { creditCents: 0 });
      const t0 = nowSeconds() - 4 * 3600;
      await grantAt(org, 10_000, new Date((t0 + 3600) * 1000));
      const roomA = await roomWithCall(org, t0, [{ identity: 'ann', sid: 'PA_a', join: 0, leave: 90 }]); // 2 min = 6
      const roomB = await roomWithCall(org, t0 + 7200, [{ identity: 'bob', sid: 'PA_b', join: 0, leave: 30 }]); // 1 min = 3
      await createRoom(h, org); // never joined: cost nothing, no line
      const before = Date.now();
      const sessionId = await buy(org, 2500);

      const res = await history(org);
      expect(res.status).toBe(200);
      const page = res.body as HistoryPage;
      expect(page).toMatchObject({ limit: 50, offset: 0, next_offset: null });
      expect(page.items.map((l) => [l.kind, l.delta_cents, l.currency, l.room?.id ?? null])).toEqual([
        ['purchase', 2500, 'usd', null],
        ['room_usage', -3, 'usd', roomB.id],
        ['grant', 10_000, 'usd', null],
        ['room_usage', -6, 'usd', roomA.id],
      ]);
      const [purchase, callB, grant, callA] = page.items;
      expect(sortedKeys(purchase)).toEqual(['currency', 'delta_cents', 'kind', 'occurred_at', 'provider_reference']);
      expect(purchase.provider_reference).toBe(sessionId);
      const purchasedAt = new Date(purchase.occurred_at).getTime();
      expect(purchasedAt).toBeGreaterThanOrEqual(before - 2000);
      expect(purchasedAt).toBeLessThanOrEqual(Date.now() + 1000);
      expect(sortedKeys(grant)).toEqual(['currency', 'delta_cents', 'kind', 'occurred_at', 'provider_reference']);
      expect(grant.provider_reference).toBeNull();
      expect(grant.occurred_at).toBe(iso(t0 + 3600));
      for (const line of [callA, callB]) expect(sortedKeys(line)).toEqual(['currency', 'delta_cents', 'kind', 'occurred_at', 'room']);
      expect(callA.occurred_at).toBe(iso(t0));
      expect(callB.occurred_at).toBe(iso(t0 + 7200));
      expect(await balance(org)).toBe(10_000 + 2500 - 9);
    });

    it('expands a call into its ended connections; a still-connected participant is absent until the room ends', async () => {
      const org = await createOrganization(h.t);
      const t0 = nowSeconds() - 600;
      const room = await createRoom(h, org);
      await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
      await token(h, org, room.name, { languages: ['de'], identity: 'bob' }).expect(201);
      await token(h, org, room.name, { languages: ['de'], identity: 'carol' }).expect(201);
      await call(room.livekitName, t0, [
        { identity: 'ann', sid: 'PA_ann1', join: 0, leave: 125 }, // 3 min × 3 = 9
        { identity: 'bob', sid: 'PA_bob', join: 10, leave: 70 }, // 1 min × 3 = 3
        { identity: 'agent-1', sid: 'PA_agent', join: 15, leave: 76, agent: true }, // 2 min × 6 = 12
        { identity: 'carol', sid: 'PA_carol', join: 20 }, // still connected
        { identity: 'ann', sid: 'PA_ann2', join: 200, leave: 260 }, // 1 min × 3 = 3
      ]);

      const live = (await history(org)).body as HistoryPage;
      const liveLines = live.items.filter((l) => l.kind === 'room_usage');
      expect(liveLines).toHaveLength(1);
      const [line] = liveLines;
      expect(line.delta_cents).toBe(-27);
      expect(line.occurred_at).toBe(iso(t0));
      const usage = line.room as RoomUsage;
      expect(sortedKeys(usage)).toEqual(
        [
          'ended_at',
          'id',
          'name',
          'participants',
          'started_at',
          'streaming_mode',
          'total_charged_cents',
          'total_connection_minutes',
        ].sort(),
      );
      expect(usage).toMatchObject({ id: room.id, name: room.name, streaming_mode: 'dual', started_at: iso(t0), ended_at: null });
      expect(usage.total_connection_minutes).toBe(7);
      expect(usage.total_charged_cents).toBe(27);
      const parts = usage.participants ?? [];
      expect(parts.map((p) => [p.participant_identity, p.participant_kind, p.connection_minutes, p.charged_cents])).toEqual([
        ['ann', 'member', 3, 9],
        ['bob', 'member', 1, 3],
        ['agent-1', 'translator', 2, 12],
        ['ann', 'member', 1, 3],
      ]);
      expect(parts.map((p) => p.participant_identity)).not.toContain('carol');
      expect(parts.reduce((sum, p) => sum + (p.charged_cents ?? 0), 0)).toBe(usage.total_charged_cents);
      expect(parts[0]).toEqual({
        id: expect.any(Number),
        participant_identity: 'ann',
        participant_kind: 'member',
        languages: ['en'],
        joined_at: iso(t0),
        left_at: iso(t0 + 125),
        connection_minutes: 3,
        charged_cents: 9,
      });
      const detail = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth)).body as RoomUsage;
      expect(detail.started_at).toBe(line.occurred_at);
      expect(parts).toEqual((detail.participants ?? []).filter((p) => p.left_at !== null));

      const roomOnly = (await history(org, { expand: 'room' })).body as HistoryPage;
      const roomLine = roomOnly.items.find((l) => l.kind === 'room_usage');
      expect(roomLine?.room).toEqual({ ...usage, participants: undefined });
      expect(roomLine?.room).not.toHaveProperty('participants');
      expect(roomLine).not.toHaveProperty('provider_reference');

      const bare = (await history(org, { expand: 'none' })).body as HistoryPage;
      expect(bare.items.map((l) => sortedKeys(l))).toEqual([
        ['currency', 'delta_cents', 'kind', 'occurred_at', 'provider_reference'],
        ['currency', 'delta_cents', 'kind', 'occurred_at'],
      ]);
      expect(bare.items.map((l) => [l.kind, l.delta_cents])).toEqual([
        ['grant', 10_000],
        ['room_usage', -27],
      ]);
      expect(await balance(org)).toBe(10_000 - 27);

      // Ending the room ends carol's connection: now she is billed and listed, still one line.
      await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
      const ended = (await history(org)).body as HistoryPage;
      const endedLines = ended.items.filter((l) => l.kind === 'room_usage');
      expect(endedLines).toHaveLength(1);
      const endedUsage = endedLines[0].room as RoomUsage;
      expect(endedUsage.ended_at).not.toBeNull();
      const carol = (endedUsage.participants ?? []).filter((p) => p.participant_identity === 'carol');
      expect(carol).toHaveLength(1);
      expect(carol[0].left_at).toBe(endedUsage.ended_at);
      expect(carol[0].charged_cents).toBe((carol[0].connection_minutes ?? 0) * 3);
      expect(endedUsage.participants).toHaveLength(5);
      expect(endedUsage.total_charged_cents).toBe(27 + (carol[0].charged_cents ?? 0));
      expect((endedUsage.participants ?? []).reduce((sum, p) => sum + (p.charged_cents ?? 0), 0)).toBe(endedUsage.total_charged_cents);
      expect(endedLines[0].delta_cents).toBe(-endedUsage.total_charged_cents);
      expect(endedLines[0].occurred_at).toBe(iso(t0));
      expect(await balance(org)).toBe(10_000 - endedUsage.total_charged_cents);
    });

    it('answers a repeated page from its cache only while nothing changed: every change shows at once', async () => {
      const org = await createOrganization(h.t, { creditCents: 0 });
      const other = await createOrganization(h.t, { creditCents: 0 });
      const t0 = nowSeconds() - 900;
      const page = async (query: Record<string, string | number> = {}) => {
        const res = await history(org, query);
        expect(res.status).toBe(200);
        return res.body as HistoryPage;
      };
      const usageOf = async () => (await page()).items.find((l) => l.kind === 'room_usage')?.room as RoomUsage | undefined;

      await grantAt(org, 5_000, new Date((t0 - 60) * 1000));
      expect((await page()).items.map((l) => l.kind)).toEqual(['grant']);
      expect((await page()).items.map((l) => l.kind)).toEqual(['grant']);

      // A purchase settles through Stripe's webhook.
      const session = await buy(org, 700);
      expect((await page()).items.map((l) => [l.kind, l.provider_reference])).toEqual([
        ['purchase', session],
        ['grant', null],
      ]);

      // A live room: each leave adds to the breakdown and the totals.
      const room = await createRoom(h, org);
      await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
      await token(h, org, room.name, { languages: ['de'], identity: 'bob' }).expect(201);
      await call(room.livekitName, t0, [
        { identity: 'ann', sid: 'PA_ann', join: 0, leave: 50 },
        { identity: 'bob', sid: 'PA_bob', join: 0 },
      ]);
      expect((await usageOf())?.participants?.map((p) => p.participant_identity)).toEqual(['ann']);
      expect((await usageOf())?.total_charged_cents).toBe(3);
      const bob = { identity: 'bob', sid: 'PA_bob', joinedAt: String(t0) };
      await webhook(h, events.participantLeft(room.livekitName, bob, { createdAt: t0 + 100 })).expect(200);
      await settled(h);
      expect((await usageOf())?.participants?.map((p) => p.participant_identity)).toEqual(['ann', 'bob']);
      expect((await usageOf())?.total_charged_cents).toBe(9);
      expect((await usageOf())?.ended_at).toBeNull();

      // Ending the room with nobody connected changes only its end.
      await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);
      expect((await usageOf())?.ended_at).toEqual(expect.any(String));

      // Other pages and expansions are cached apart; another organization's changes leave this one alone.
      expect((await page({ expand: 'none', limit: 1, offset: 2 })).items.map((l) => l.kind)).toEqual(['grant']);
      await grantAt(other, 100, new Date());
      await grantAt(org, 200, new Date());
      expect((await page({ expand: 'none', limit: 1, offset: 2 })).items.map((l) => l.kind)).toEqual(['room_usage']);
      expect((await page()).items.map((l) => l.delta_cents)).toEqual([200, 700, -9, 5_000]);
      expect((await history(other)).body.items.map((l: HistoryLine) => l.delta_cents)).toEqual([100]);
    });

    it('sums over all pages to the balance, pages stably under equal timestamps, and can go negative', async () => {
      const org = await createOrganization(h.t, { creditCents: 0 });
      const other = await createOrganization(h.t, { creditCents: 0 });
      const t0 = nowSeconds() - 3600;
      const same = new Date(t0 * 1000);
      for (const cents of [1000, 2000, 3000]) await grantAt(org, cents, same);
      await grantAt(other, 4000, same);
      // Three calls starting at the same second as the grants, with different costs.
      for (const [i, seconds] of [30, 90, 150, 210].entries()) {
        await roomWithCall(i === 3 ? other : org, t0, [
          { identity: `p${i}`, sid: `PA_p${i}`, join: 0, leave: seconds },
          { identity: `q${i}`, sid: `PA_q${i}`, join: 0, leave: seconds + 60 },
        ]);
      }
      await buy(org, 600);
      await buy(other, 900);

      const expected = 1000 + 2000 + 3000 + 600 - 3 * (1 + 2) - 3 * (2 + 3) - 3 * (3 + 4);
      expect(await balance(org)).toBe(expected);
      const signature = (l: HistoryLine) => `${l.kind}:${l.delta_cents}:${l.occurred_at}:${l.room?.id ?? ''}:${l.provider_reference ?? ''}`;
      const whole = await allLines(org, 200);
      expect(whole).toHaveLength(7);
      expect(new Set(whole.map(signature)).size).toBe(7);
      expect(whole.reduce((sum, l) => sum + l.delta_cents, 0)).toBe(expected);
      for (const expand of [undefined, 'none', 'room', 'participants']) {
        const byTwo = await allLines(org, 2, expand);
        expect(byTwo.reduce((sum, l) => sum + l.delta_cents, 0)).toBe(expected);
        expect(byTwo.map((l) => `${l.kind}:${l.delta_cents}:${l.occurred_at}`)).toEqual(
          whole.map((l) => `${l.kind}:${l.delta_cents}:${l.occurred_at}`),
        );
      }
      expect((await allLines(org, 1)).map(signature)).toEqual(whole.map(signature));
      expect((await allLines(org, 3)).map(signature)).toEqual(whole.map(signature));
      const times = whole.map((l) => new Date(l.occurred_at).getTime());
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(whole.slice(1).every((l) => l.occurred_at === iso(t0))).toBe(true);

      // Past the end: an empty page.
      const past = await history(org, { offset: 50 });
      expect(past.body).toEqual({ items: [], limit: 50, offset: 50, next_offset: null });

      // A call running past zero takes the balance negative; the lines still sum to it.
      const poor = await createOrganization(h.t, { creditCents: 5 });
      await roomWithCall(poor, t0, [{ identity: 'x', sid: 'PA_x', join: 0, leave: 150 }]); // 3 min = 9
      expect(await balance(poor)).toBe(-4);
      expect((await allLines(poor, 2)).reduce((sum, l) => sum + l.delta_cents, 0)).toBe(-4);
      expect((await h.t.http().post('/v1/rooms').set(poor.auth).send({})).status).toBe(402);
    });

    it('answers an empty page for any offset past the end up to 2^53 - 1 (history and rooms), and 422 beyond it', async () => {
      const org = await createOrganization(h.t, { creditCents: 0 });
      const t0 = nowSeconds() - 3600;
      await grantAt(org, 1000, new Date(t0 * 1000));
      await roomWithCall(org, t0, [{ identity: 'ann', sid: 'PA_offset', join: 0, leave: 60 }]);
      const offsets = ['2147483647', '2147483648', '4294967296', '9007199254740991'];
      for (const offset of offsets) {
        for (const expand of ['none', 'room', 'participants']) {
          for (const limit of ['1', '200']) {
            const res = await h.t.http().get(`/v1/billing/history?offset=${offset}&limit=${limit}&expand=${expand}`).set(org.auth);
            expect({ offset, expand, limit, status: res.status }).toEqual({ offset, expand, limit, status: 200 });
            expect(res.body).toEqual({ items: [], limit: Number(limit), offset: Number(offset), next_offset: null });
          }
        }
        const rooms = await h.t.http().get(`/v1/rooms?offset=${offset}&limit=200`).set(org.auth);
        expect({ offset, status: rooms.status }).toEqual({ offset, status: 200 });
        expect(rooms.body).toEqual({ items: [], limit: 200, offset: Number(offset), next_offset: null });
      }
      // The lines are still there below the end.
      expect((await history(org, { offset: 1, limit: 200 })).body.items).toHaveLength(1);

      for (const path of ['/v1/billing/history', '/v1/rooms']) {
        for (const offset of ['9007199254740992', '100000000000000000000']) {
          const res = await h.t.http().get(`${path}?offset=${offset}`).set(org.auth);
          expect({ path, offset, status: res.status }).toEqual({ path, offset, status: 422 });
          expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'offset'], input: offset })]);
        }
      }
    });

    it('computes a page from one snapshot: a charge committed between its reads never shows half', async () => {
      const org = await createOrganization(h.t);
      const t0 = nowSeconds() - 600;
      const room = await createRoom(h, org);
      await call(room.livekitName, t0, [
        { identity: 'ann', sid: 'PA_snap_a', join: 0, leave: 60 }, // 1 min = 3
        { identity: 'bob', sid: 'PA_snap_b', join: 0 }, // still connected
      ]);
      const [open] = (await h.t.db.query(`SELECT id FROM connections WHERE room_id = $1 AND left_at IS NULL`, [room.id])) as {
        id: number;
      }[];
      // Bob leaves (as the meter records it) while the page is being read: after its lines, before its rooms.
      const bobLeaves = () =>
        h.t.db.transaction(async (tx) => {
          await tx.query(
            `UPDATE connections SET left_at = joined_at + interval '2 minutes', connection_minutes = 2, charged_cents = 6 WHERE id = $1`,
            [open.id],
          );
          await tx.query(
            `UPDATE rooms SET total_connection_minutes = total_connection_minutes + 2, total_charged_cents = total_charged_cents + 6 WHERE id = $1`,
            [room.id],
          );
        });
      type Query = (this: Client, ...args: unknown[]) => unknown;
      const original = Client.prototype.query as unknown as Query;
      let interleaved = false;
      const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
        if (interleaved || (args[0] as { name?: string } | undefined)?.name !== 'history_rooms') return original.apply(this, args) as never;
        interleaved = true;
        const callback = args.find((arg) => typeof arg === 'function') as ((error: Error) => void) | undefined;
        const pending = bobLeaves().then(() => original.apply(this, args));
        if (!callback) return pending as never;
        pending.catch(callback);
        return undefined as never;
      });
      let page: HistoryPage;
      try {
        page = (await history(org)).body as HistoryPage;
      } finally {
        spy.mockRestore();
      }
      expect(interleaved).toBe(true);
      const shown = page.items.find((l) => l.kind === 'room_usage') as HistoryLine;
      const usage = shown.room as RoomUsage;
      expect(shown.delta_cents).toBe(-usage.total_charged_cents);
      expect((usage.participants ?? []).reduce((sum, p) => sum + (p.charged_cents ?? 0), 0)).toBe(usage.total_charged_cents);
      expect(usage.total_charged_cents).toBe(3);

      // The next request shows Bob's leave: the first page was not cached under the newer version.
      const next = (await history(org)).body as HistoryPage;
      const line = next.items.find((l) => l.kind === 'room_usage') as HistoryLine;
      expect(line.delta_cents).toBe(-9);
      expect(line.room?.total_charged_cents).toBe(9);
      expect((line.room?.participants ?? []).map((p) => [p.participant_identity, p.charged_cents])).toEqual([
        ['ann', 3],
        ['bob', 6],
      ]);
    });

    it("never shows another organization's lines", async () => {
      const mine = await createOrganization(h.t, { creditCents: 0 });
      const theirs = await createOrganization(h.t, { creditCents: 0 });
      const t0 = nowSeconds() - 1800;
      await grantAt(mine, 10_000, new Date((t0 + 60) * 1000));
      await grantAt(theirs, 10_000, new Date((t0 + 60) * 1000));
      const myRoom = await roomWithCall(mine, t0, [{ identity: 'm', sid: 'PA_m', join: 0, leave: 60 }]);
      const theirRoom = await roomWithCall(theirs, t0, [{ identity: 't', sid: 'PA_t', join: 0, leave: 60 }]);
      const mySession = await buy(mine, 800);
      const theirSession = await buy(theirs, 900);
      for (const [org, room, session, foreignRoom, foreignSession] of [
        [mine, myRoom, mySession, theirRoom, theirSession],
        [theirs, theirRoom, theirSession, myRoom, mySession],
      ] as const) {
        for (const expand of ['none', 'room', 'participants']) {
          const lines = await allLines(org, 200, expand);
          expect(lines.map((l) => l.kind)).toEqual(['purchase', 'grant', 'room_usage']);
          expect(lines.map((l) => l.provider_reference)).not.toContain(foreignSession);
          expect(lines[0].provider_reference).toBe(session);
          if (expand !== 'none') {
            expect(lines[2].room?.id).toBe(room.id);
            expect(lines.map((l) => l.room?.id)).not.toContain(foreignRoom.id);
          }
        }
      }
      expect(await balance(mine)).toBe(10_000 + 800 - 3);
      expect(await balance(theirs)).toBe(10_000 + 900 - 3);
    });

    it('answers 422 for an unknown expand and out-of-range paging, with the exact body', async () => {
      const org = await createOrganization(h.t);
      const expectations: [Record<string, string>, unknown][] = [
        [
          { expand: 'foo' },
          [
            {
              loc: ['query', 'expand'],
              msg: "Input should be 'none', 'room' or 'participants'",
              type: 'enum',
              input: 'foo',
              ctx: { expected: "'none', 'room' or 'participants'" },
            },
          ],
        ],
        [
          { limit: '0' },
          [
            {
              loc: ['query', 'limit'],
              msg: 'Input should be greater than or equal to 1',
              type: 'greater_than_equal',
              input: '0',
              ctx: { ge: 1 },
            },
          ],
        ],
        [
          { limit: '201' },
          [
            {
              loc: ['query', 'limit'],
              msg: 'Input should be less than or equal to 200',
              type: 'less_than_equal',
              input: '201',
              ctx: { le: 200 },
            },
          ],
        ],
        [
          { offset: '-1' },
          [
            {
              loc: ['query', 'offset'],
              msg: 'Input should be greater than or equal to 0',
              type: 'greater_than_equal',
              input: '-1',
              ctx: { ge: 0 },
            },
          ],
        ],
        [
          { expand: 'ROOM', limit: 'ten', offset: '-5' },
          [
            expect.objectContaining({ loc: ['query', 'limit'], type: 'int_parsing', input: 'ten' }),
            expect.objectContaining({ loc: ['query', 'offset'], type: 'greater_than_equal', ctx: { ge: 0 } }),
            expect.objectContaining({ loc: ['query', 'expand'], type: 'enum', input: 'ROOM' }),
          ],
        ],
      ];
      for (const [query, detail] of expectations) {
        const res = await history(org, query);
        expect({ query, status: res.status }).toEqual({ query, status: 422 });
        if (Object.keys(query).length > 1) {
          expect(res.body.detail).toEqual(expect.arrayContaining(detail as unknown[]));
          expect(res.body.detail).toHaveLength((detail as unknown[]).length);
        } else {
          expect(res.body).toEqual({ detail });
        }
      }
      expect((await history(org, { limit: 200, offset: 0, expand: 'none' })).status).toBe(200);
    });

    it('answers 401 without credentials', async () => {
      const res = await h.t.http().get('/v1/billing/history');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    });
  });
});
