import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { createOrganization } from '../support/factories';
import { events, createRoom, settled, token, webhook } from '../support/rooms-harness';
import { checkoutAndPay, startFullHarness, stripeWebhook, type FullHarness } from '../support/payments-harness';
import { TEST_WEBHOOK_SECRET } from '../support/stripe-webhooks';
import { spawnWorkerChild } from '../support/worker-child';

const LOCK_MS = 1000;

/**
 * A worker process is killed (SIGKILL) while it is inside the transaction that applies an event:
 * the event was stored and acknowledged, so after a new worker starts it must apply exactly once.
 */
describe('a worker killed in the middle of applying an event', () => {
  let h: FullHarness;
  let blocker: Client;
  beforeAll(async () => {
    // This process only receives webhooks; the workers run in child processes we can kill.
    h = await startFullHarness({ RUN_QUEUE_WORKERS: 'false', QUEUE_LOCK_DURATION_MS: String(LOCK_MS) });
    blocker = new Client({ connectionString: h.t.config.databaseUrl });
    await blocker.connect();
  });
  const workers: ChildProcess[] = [];
  afterAll(async () => {
    // Also after a failed test: no worker left running, no lock left held (the database can be dropped).
    for (const worker of workers) worker.kill('SIGKILL');
    await blocker.query('ROLLBACK');
    await blocker.end();
    await h.close();
  });

  function startWorker(): Promise<ChildProcess> {
    const { child, ready } = spawnWorkerChild(h.t.config, {
      QUEUE_LOCK_DURATION_MS: String(LOCK_MS),
      LIVEKIT_API_URL: h.livekit.url,
      LIVEKIT_API_KEY: h.livekit.apiKey,
      LIVEKIT_API_SECRET: h.livekit.apiSecret,
      STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    });
    workers.push(child);
    return ready;
  }

  /**
   * Waits until some session is blocked waiting for a lock held by `blocker`; returns the tables that
   * session has already written to in its open transaction (where it is when it gets killed).
   */
  async function waitForBlockedWorker(): Promise<string[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await blocker.query(
        `SELECT w.pid, coalesce(array_agg(DISTINCT h.relation::regclass::text) FILTER (WHERE h.mode = 'RowExclusiveLock'), '{}') AS written
           FROM pg_locks w JOIN pg_locks h ON h.pid = w.pid
          WHERE NOT w.granted AND pg_backend_pid() = ANY (pg_blocking_pids(w.pid))
          GROUP BY w.pid`,
      );
      if (rows.length > 0) return (rows[0] as { written: string[] }).written;
      if (Date.now() > deadline) throw new Error('no worker ever blocked');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function killAndRecover(child: ChildProcess): Promise<ChildProcess> {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await blocker.query('ROLLBACK');
    return startWorker();
  }

  it.each([
    ['before it wrote the connection or the charge (waiting for its room)', `SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE`, false],
    [
      'after closing the connection and inserting the charge, at its last write (the balance)',
      `SELECT 1 FROM credit_accounts WHERE organization_id = (SELECT organization_id FROM rooms WHERE id = $1) FOR UPDATE`,
      true,
    ],
  ])(
    'applies a metering event exactly once when killed %s',
    async (_when, lockSql, afterWrites) => {
      const org = await createOrganization(h.t);
      const room = await createRoom(h, org);
      await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
      const t0 = Math.floor(Date.now() / 1000) - 300;
      const p = { identity: 'ann', sid: 'PA_crash', joinedAt: String(t0) };
      let worker = await startWorker();
      await webhook(h, events.participantJoined(room.livekitName, p, { createdAt: t0 })).expect(200);
      await settled(h, 20_000);

      await blocker.query('BEGIN');
      await blocker.query(lockSql, [room.id]);
      await webhook(h, events.participantLeft(room.livekitName, p, { createdAt: t0 + 150 })).expect(200);
      const written = await waitForBlockedWorker();
      expect(['connections', 'ledger_entries'].every((table) => written.includes(table))).toBe(afterWrites);
      worker = await killAndRecover(worker);
      try {
        await settled(h, 30_000);
        const rows = (await h.t.db.query(`SELECT connection_minutes, charged_cents FROM connections WHERE room_id = $1`, [room.id])) as {
          connection_minutes: number;
          charged_cents: number;
        }[];
        expect(rows).toEqual([{ connection_minutes: 3, charged_cents: 9 }]);
        const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE room_id = $1`, [room.id])) as {
          n: number;
        }[];
        expect(n).toBe(1);
        const credit = await h.t.http().get('/v1/billing/credit').set(org.auth);
        expect(credit.body.credit_cents).toBe(10_000 - 9);
      } finally {
        worker.kill('SIGKILL');
      }
    },
    90_000,
  );

  it('applies a payment exactly once', async () => {
    const org = await createOrganization(h.t);
    const event = await checkoutAndPay(h, org, 2500);
    let worker = await startWorker();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM credit_accounts WHERE organization_id = $1 FOR UPDATE', [org.organizationId]);
    await stripeWebhook(h, event).expect(200);
    expect(await waitForBlockedWorker()).toContain('ledger_entries'); // the purchase row is written, the balance not yet
    worker = await killAndRecover(worker);
    try {
      await settled(h, 30_000);
      await stripeWebhook(h, event).expect(200);
      await settled(h, 30_000);
      const credit = await h.t.http().get('/v1/billing/credit').set(org.auth);
      expect(credit.body.credit_cents).toBe(10_000 + 2500);
      const [{ n }] = (await h.t.db.query(
        `SELECT count(*)::int AS n FROM ledger_entries WHERE organization_id = $1 AND kind = 'purchase'`,
        [org.organizationId],
      )) as { n: number }[];
      expect(n).toBe(1);
    } finally {
      worker.kill('SIGKILL');
    }
  }, 90_000);
});
