import { DatabaseClient } from '../../src/database/database.client';
import type { ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { LedgerService } from '../../src/modules/billing/ledger.service';
import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';
import { freePort } from '../support/free-port';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { spawnWorkerChild } from '../support/worker-child';

/**
 * A worker process is killed (SIGKILL) while its delivery is in flight (the receiver has the
 * request and has not answered): a worker started after it sends the same event again.
 */
describe('a worker killed in the middle of a customer webhook delivery', () => {
  let t: TestApp;
  let r: WebhookReceiver;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    // This process only writes the events; the deliveries are sent by child processes we can kill.
    t = await startTestApp({ RUN_QUEUE_WORKERS: 'false', QUEUE_LOCK_DURATION_MS: '1000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await r.close();
    await t.close();
  });

  function startWorker(extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
    const { child, ready } = spawnWorkerChild(t.config, {
      QUEUE_LOCK_DURATION_MS: '1000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      ...extraEnv,
    });
    workers.push(child);
    return ready;
  }

  it('sends the event again, with the same id, and records it delivered once', async () => {
    const org = await createOrganization(t, { creditCents: 100 });
    const created = await t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: r.url, events: ['credit.exhausted'] });
    expect(created.status).toBe(201);
    r.reply = (_request, index) => (index === 0 ? 'hang' : { status: 204 });

    const ledger = t.app.get(LedgerService);
    await t.app
      .get(DatabaseClient)
      .transaction((tx) =>
        ledger.credit(tx, { organizationId: org.organizationId, kind: 'adjustment', cents: -150, occurredAt: new Date() }),
      );
    const first = await startWorker();
    const [inFlight] = await r.waitFor((all) => all.length >= 1, 30_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    const metricsPort = await freePort();
    const second = await startWorker({ METRICS_PORT: String(metricsPort) });
    try {
      const received = await r.waitFor((all) => all.length >= 2, 30_000);
      expect(received[1].headers['webhook-id']).toBe(inFlight.headers['webhook-id']);
      expect(received[1].body).toBe(inFlight.body);
      new Webhook(created.body.secret as string).verify(received[1].body, received[1].headers as Record<string, string>);
      const deadline = Date.now() + 20_000;
      let rows: { status: string; attempts: number; last_status_code: number }[] = [];
      while (Date.now() < deadline) {
        rows = (await t.db.query(`SELECT status, attempts, last_status_code FROM webhook_deliveries WHERE endpoint_id = $1`, [
          created.body.id,
        ])) as typeof rows;
        if (rows[0]?.status === 'delivered') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The killed attempt never got to record itself; the event was sent to this endpoint exactly twice.
      expect(rows).toEqual([{ status: 'delivered', attempts: 1, last_status_code: 204 }]);
      expect(r.received).toHaveLength(2);
      // The worker process serves its own metrics.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toContain('customer_webhook_deliveries_total{outcome="delivered"} 1');
    } finally {
      second.kill('SIGKILL');
    }
  }, 90_000);
});
