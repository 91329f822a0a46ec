import { QUEUES } from '@app/contracts';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { QueueRegistry } from '../../queue/queue-registry';
import { Metrics } from '../metrics/metrics';
import { postWebhook, type AttemptResult } from './webhook-sender';

export interface DeliveryJob {
  deliveryId: string;
}

interface Claimed {
  id: string;
  attempts: number;
  max_attempts: number;
  lane: string | null;
  endpoint_id: string;
  url: string;
  secret: string;
  event_id: string;
  body: string;
}

/** How often due deliveries are looked for besides the commit notifications (retries, crashes). */
const SWEEP_INTERVAL_MS = 1_000;
const SWEEP_BATCH = 1_000;
const CHANNEL = 'webhook_deliveries';
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

/** A due delivery whose earlier deliveries of the same endpoint and room are all settled. */
const LANE_HEAD = `NOT EXISTS (SELECT 1 FROM webhook_deliveries p
  WHERE p.endpoint_id = d.endpoint_id AND p.lane = d.lane AND p.status = 'pending' AND p.seq < d.seq)`;

/**
 * Sends the deliveries the outbox holds. A commit that inserted deliveries notifies us; a sweep
 * then enqueues every due delivery that heads its lane (endpoint + room), one job per attempt. A
 * job claims its delivery in the database (a lease longer than an attempt can take), posts it
 * signed, and records the outcome: delivered, a retry at the schedule's next wait, or failed. A
 * worker that dies mid-attempt loses its lease, and the sweep sends the delivery again.
 * Each process sends at most `endpointConcurrency` deliveries to one endpoint at a time, so a
 * slow endpoint holds a few of the queue's slots, never all of them.
 */
@Injectable()
export class CustomerWebhookDelivery implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CustomerWebhookDelivery.name);
  private readonly inFlight = new Map<string, number>();
  private listener: Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueRegistry,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queues.process<DeliveryJob>(QUEUES.customerWebhooks, (job) => this.attempt(job.data.deliveryId), {
      concurrency: this.config.webhooks.concurrency,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.queue.runWorkers) return;
    await this.listen();
    this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.timer.unref();
    this.sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.listener?.end().catch(() => undefined);
    await this.sweeping;
  }

  /** Sends one delivery again now (the log's manual retry), whatever its state. */
  async sendNow(deliveryId: string): Promise<void> {
    await this.queues.add(
      QUEUES.customerWebhooks,
      'deliver',
      { deliveryId },
      { ...JOB_OPTIONS, jobId: `${deliveryId}.manual.${Date.now()}` },
    );
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('notification', () => this.sweep());
    client.on('error', (error: Error) => {
      this.logger.warn(`Delivery notifications lost (${error.message}); reconnecting`);
      this.listener = null;
      if (!this.stopped) setTimeout(() => void this.listen().catch(() => undefined), 1_000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  /** Runs a sweep, or one more after the running one (notifications that arrive meanwhile are covered by it). */
  private sweep(): void {
    if (this.stopped) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = this.enqueueDue()
      .catch((error: Error) => this.logger.warn(`Delivery sweep failed: ${error.message}`))
      .finally(() => {
        this.sweeping = null;
        if (this.sweepAgain) {
          this.sweepAgain = false;
          this.sweep();
        }
      });
  }

  private async enqueueDue(): Promise<void> {
    const due = (await this.dataSource.query(
      `SELECT d.id, d.attempts FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now()) AND ${LANE_HEAD}
        ORDER BY d.next_attempt_at, d.seq LIMIT ${SWEEP_BATCH}`,
    )) as { id: string; attempts: number }[];
    if (due.length === 0) return;
    // The job id names the attempt: while one is queued, enqueuing it again is a no-op.
    await this.queues
      .queue<DeliveryJob>(QUEUES.customerWebhooks)
      .addBulk(due.map((d) => ({ name: 'deliver', data: { deliveryId: d.id }, opts: { ...JOB_OPTIONS, jobId: `${d.id}.${d.attempts}` } })));
  }

  private async attempt(deliveryId: string): Promise<void> {
    const [target] = (await this.dataSource.query(`SELECT endpoint_id FROM webhook_deliveries WHERE id = $1 AND status = 'pending'`, [
      deliveryId,
    ])) as { endpoint_id: string }[];
    if (!target) return;
    const busy = this.inFlight.get(target.endpoint_id) ?? 0;
    // At this endpoint's limit: the sweep enqueues it again once a slot is free.
    if (busy >= this.config.webhooks.endpointConcurrency) return;
    this.inFlight.set(target.endpoint_id, busy + 1);
    try {
      const claimed = await this.claim(deliveryId);
      if (!claimed) return;
      const result = await this.post(claimed);
      await this.record(claimed, result);
    } finally {
      const left = (this.inFlight.get(target.endpoint_id) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(target.endpoint_id);
      else this.inFlight.set(target.endpoint_id, left);
    }
  }

  /** Takes the delivery's lease if it is due, heads its lane, and its endpoint still exists. */
  private async claim(deliveryId: string): Promise<Claimed | null> {
    const leaseSeconds = (2 * this.config.webhooks.timeoutMs + 1_000) / 1000;
    const [rows] = (await this.dataSource.query(
      `UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $2)
         FROM webhook_endpoints e, webhook_events ev
        WHERE d.id = $1 AND d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
          AND e.id = d.endpoint_id AND e.deleted_at IS NULL AND ev.seq = d.event_seq AND ${LANE_HEAD}
        RETURNING d.id, d.attempts, d.max_attempts, d.lane, d.endpoint_id, e.url, e.secret, ev.id AS event_id, ev.body`,
      [deliveryId, leaseSeconds],
    )) as [Claimed[], number];
    return rows[0] ?? null;
  }

  private async post(claimed: Claimed): Promise<AttemptResult> {
    const signature = new Webhook(claimed.secret).sign(claimed.event_id, new Date(), claimed.body);
    const headers = {
      'webhook-id': claimed.event_id,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': signature,
    };
    return postWebhook(claimed.url, headers, claimed.body, {
      timeoutMs: this.config.webhooks.timeoutMs,
      allowPrivate: this.config.webhooks.allowPrivateUrls,
    });
  }

  private async record(claimed: Claimed, result: AttemptResult): Promise<void> {
    const attempts = claimed.attempts + 1;
    const schedule = this.config.webhooks.retryScheduleMs;
    if (result.ok) {
      await this.dataSource.query(
        `UPDATE webhook_deliveries SET status = 'delivered', attempts = $2, last_status_code = $3, last_error = NULL,
                delivered_at = now(), next_attempt_at = NULL, locked_until = NULL
          WHERE id = $1 AND status = 'pending'`,
        [claimed.id, attempts, result.statusCode],
      );
      this.metrics.customerDeliveries.inc({ outcome: 'delivered' });
      return this.next(claimed);
    }
    if (attempts >= claimed.max_attempts) {
      await this.dataSource.query(
        `UPDATE webhook_deliveries SET status = 'failed', attempts = $2, last_status_code = $3, last_error = $4, next_attempt_at = NULL, locked_until = NULL
          WHERE id = $1 AND status = 'pending'`,
        [claimed.id, attempts, result.statusCode, result.error],
      );
      this.metrics.customerDeliveries.inc({ outcome: 'failed' });
      return this.next(claimed);
    }
    const waitMs = schedule[Math.min(attempts, schedule.length) - 1] ?? 0;
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET attempts = $2, last_status_code = $3, last_error = $4,
              next_attempt_at = now() + make_interval(secs => $5), locked_until = NULL
        WHERE id = $1 AND status = 'pending'`,
      [claimed.id, attempts, result.statusCode, result.error, waitMs / 1000],
    );
    this.metrics.customerDeliveries.inc({ outcome: 'retried' });
    await this.queues.add(
      QUEUES.customerWebhooks,
      'deliver',
      { deliveryId: claimed.id },
      { ...JOB_OPTIONS, jobId: `${claimed.id}.${attempts}`, delay: waitMs },
    );
  }

  /** The lane's next delivery goes at once, without waiting for a sweep. */
  private async next(claimed: Claimed): Promise<void> {
    if (claimed.lane === null) return;
    const [next] = (await this.dataSource.query(
      `SELECT id, attempts FROM webhook_deliveries WHERE endpoint_id = $1 AND lane = $2 AND status = 'pending' ORDER BY seq LIMIT 1`,
      [claimed.endpoint_id, claimed.lane],
    )) as { id: string; attempts: number }[];
    if (next)
      await this.queues.add(
        QUEUES.customerWebhooks,
        'deliver',
        { deliveryId: next.id },
        { ...JOB_OPTIONS, jobId: `${next.id}.${next.attempts}` },
      );
  }
}
