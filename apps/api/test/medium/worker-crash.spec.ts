import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { createOrganization } from '../support/factories';
import { events, createRoom, settled, token, webhook } from '../support/rooms-harness';
import { checkoutAndPay, startFullHarness, stripeWebhook, type FullHarness } from '../support/payments-harness';
import { TEST_WEBHOOK_SECRET } from '../support/stripe-webhooks';

const ROOT = path.resolve(__dirname, '../../../..');
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
  afterAll(async () => {
    await blocker.end();
    await h.close();
  });

  function startWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/test/support/worker-process.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        PORT: '0',
        DATABASE_URL: h.t.config.databaseUrl,
        QUEUE_PREFIX: h.t.config.queuePrefix,
        QUEUE_LOCK_DURATION_MS: String(LOCK_MS),
        LIVEKIT_API_URL: h.livekit.url,
        LIVEKIT_API_KEY: h.livekit.apiKey,
        LIVEKIT_API_SECRET: h.livekit.apiSecret,
        STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Promise((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve(child));
      child.on('exit', (code) => reject(new Error(`worker exited early with ${code}`)));
    });
  }

  /** Waits until some session is blocked waiting for a lock held by `blocker`. */
  async function waitForBlockedWorker(): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await blocker.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
      );
      if ((rows[0] as { n: number }).n > 0) return;
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

  it('applies a metering event exactly once', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    await token(h, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
    const t0 = Math.floor(Date.now() / 1000) - 300;
    const p = { identity: 'ann', sid: 'PA_crash', joinedAt: String(t0) };
    let worker = await startWorker();
    await webhook(h, events.participantJoined(room.livekitName, p, { createdAt: t0 })).expect(200);
    await settled(h, 20_000);

    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE', [room.id]);
    await webhook(h, events.participantLeft(room.livekitName, p, { createdAt: t0 + 150 })).expect(200);
    await waitForBlockedWorker();
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
  }, 90_000);

  it('applies a payment exactly once', async () => {
    const org = await createOrganization(h.t);
    const event = await checkoutAndPay(h, org, 2500);
    let worker = await startWorker();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM credit_accounts WHERE organization_id = $1 FOR UPDATE', [org.organizationId]);
    await stripeWebhook(h, event).expect(200);
    await waitForBlockedWorker();
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
