import { DatabaseClient } from '../../src/database/database.client';
import { LedgerService } from '../../src/modules/billing/ledger.service';
import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

describe('Low-balance alerts', () => {
  let t: TestApp;
  let r: WebhookReceiver;
  beforeAll(async () => {
    // Attempts never time out here: an endpoint that hangs keeps its requests open for the whole test.
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '60000' });
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    await r.close();
    await t.close();
  });

  it('reads and sets the threshold, shown with the credit; out-of-range values are 422', async () => {
    const org = await createOrganization(t);
    expect((await t.http().get('/v1/billing/alerts').set(org.auth)).body).toEqual({ low_balance_cents: null });
    const set = await t.http().put('/v1/billing/alerts').set(org.auth).send({ low_balance_cents: 2500 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ low_balance_cents: 2500 });
    expect((await t.http().get('/v1/billing/alerts').set(org.auth)).body).toEqual({ low_balance_cents: 2500 });
    const credit = await t.http().get('/v1/billing/credit').set(org.auth);
    expect(credit.body).toEqual(expect.objectContaining({ credit_cents: 10_000, low_balance_cents: 2500 }));

    for (const [body, type] of [
      [{ low_balance_cents: -1 }, 'greater_than_equal'],
      [{ low_balance_cents: 10_000_001 }, 'less_than_equal'],
      [{ low_balance_cents: 'ten' }, 'int_parsing'],
      [{}, 'missing'],
    ] as const) {
      const res = await t.http().put('/v1/billing/alerts').set(org.auth).send(body);
      expect({ status: res.status, loc: res.body.detail[0].loc, type: res.body.detail[0].type }).toEqual({
        status: 422,
        loc: ['body', 'low_balance_cents'],
        type,
      });
    }
    expect((await t.http().put('/v1/billing/alerts').set(org.auth).send({ low_balance_cents: null })).body).toEqual({
      low_balance_cents: null,
    });
    expect((await t.http().get('/v1/billing/credit').set(org.auth)).body.low_balance_cents).toBeNull();
  });

  it('sends exactly one credit.low and one credit.exhausted for a burst of concurrent charges crossing both; a top-up re-arms them', async () => {
    const org = await createOrganization(t, { creditCents: 100 });
    await t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: r.url, events: ['credit.low', 'credit.exhausted'] })
      .expect(201);
    await t.http().put('/v1/billing/alerts').set(org.auth).send({ low_balance_cents: 50 }).expect(200);
    const ledger = t.app.get(LedgerService);
    // 20 transactions at once, each taking 6 cents: 100 → -20, crossing 50 and 0 once each.
    const spend = (cents: number) =>
      t.app
        .get(DatabaseClient)
        .transaction((tx) => ledger.credit(tx, { organizationId: org.organizationId, kind: 'adjustment', cents, occurredAt: new Date() }));
    await Promise.all(Array.from({ length: 20 }, () => spend(-6)));
    const alerts = async () =>
      (
        (await t.db.query(`SELECT type FROM webhook_events WHERE organization_id = $1 ORDER BY seq`, [org.organizationId])) as {
          type: string;
        }[]
      ).map((row) => row.type);
    expect((await alerts()).sort()).toEqual(['credit.exhausted', 'credit.low']);
    await r.waitFor((all) => all.length >= 2);

    // Topped up above the threshold, then spent below it again: one more of each.
    await spend(200);
    await Promise.all(Array.from({ length: 10 }, () => spend(-30)));
    expect((await alerts()).sort()).toEqual(['credit.exhausted', 'credit.exhausted', 'credit.low', 'credit.low']);
    const received = await r.waitFor((all) => all.length >= 4);
    expect(received.map((x) => x.event.type).sort()).toEqual(['credit.exhausted', 'credit.exhausted', 'credit.low', 'credit.low']);
  });

  it('keeps delivering to other endpoints while one endpoint hangs', async () => {
    const org = await createOrganization(t, { creditCents: 100 });
    const hanging = await startWebhookReceiver();
    hanging.reply = () => 'hang';
    try {
      for (const url of [hanging.url, r.url]) {
        await t
          .http()
          .post('/v1/webhook-endpoints')
          .set(org.auth)
          .send({ url, events: ['credit.low'] })
          .expect(201);
      }
      await t.http().put('/v1/billing/alerts').set(org.auth).send({ low_balance_cents: 50 }).expect(200);
      const ledger = t.app.get(LedgerService);
      const move = (cents: number) =>
        t.app
          .get(DatabaseClient)
          .transaction((tx) =>
            ledger.credit(tx, { organizationId: org.organizationId, kind: 'adjustment', cents, occurredAt: new Date() }),
          );
      const before = r.received.length;
      for (let i = 0; i < 3; i++) {
        await move(-60);
        await move(60);
      }
      await hanging.waitFor((all) => all.length >= 1);
      const fast = await r.waitFor((all) => all.length >= before + 3);
      expect(fast.slice(before).map((x) => x.event.type)).toEqual(['credit.low', 'credit.low', 'credit.low']);
      // Meanwhile the hanging endpoint has its requests still open: none was answered or given up.
      expect(hanging.received.every((x) => !x.abandoned)).toBe(true);
    } finally {
      await hanging.close();
    }
  });
});
