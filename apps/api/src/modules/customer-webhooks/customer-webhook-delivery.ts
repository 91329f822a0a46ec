import { QUEUES } from '@app/contracts';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Coalescer } from '../../common/batching/coalescer';
import { QueueRegistry } from '../../queue/queue-registry';
import { Metrics } from '../../common/metrics/metrics';
import { postWebhook, type AttemptResult } from './webhook-sender';
import { Database } from '../../database/database';

export interface DeliveryJob {
  endpointId: string;
}

interface Attempt {
  endpointId: string;
  delivery: Claimed;
  result: AttemptResult;
}

interface Claimed {
  id: string;
  attempts: number;
  max_attempts: number;
  event_id: string;
  body: string;
  /** The endpoint's. */
  url: string;
  secret: string;
}

/** How often due deliveries are looked for besides the commit notifications (retries, crashes). */
const SWEEP_INTERVAL_MS = 1_000;
const CHANNEL = 'webhook_deliveries';
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

/**
 * Sends the deliveries the outbox holds, by endpoint. A commit that inserted deliveries notifies
 * us; a sweep (then, and every second) enqueues one job per endpoint with due deliveries (job id
 * `endpoint.<id>`, so an endpoint has one job at a time). The job claims the endpoint's due
 * deliveries that head their lanes (a room's earlier events first), with a lease in the database
 * longer than an attempt can take, posts them signed, records each outcome as it comes back
 * (delivered, a retry at the schedule's next wait, or failed; outcomes of all endpoints that come
 * back together share one statement), and claims more while more are due. A worker that dies
 * mid-attempt loses its lease; the delivery is then sent again.
 * A slow endpoint holds its own job only: at most `endpointConcurrency` of its deliveries are in
 * flight, and the other endpoints' jobs run beside it.
 */
@Injectable()
export class CustomerWebhookDelivery implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(CustomerWebhookDelivery.name);
  private listener: Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;
  private stopped = false;
  /** Counts commits that inserted deliveries: a job that found nothing due looks again if it moved meanwhile. */
  private notified = 0;
  /** The endpoints whose job runs in this process; a second job for one of them only asks it to look again. */
  private readonly running = new Map<string, { lookAgain: boolean }>();
  /** Outcomes of attempts that come back at the same time are recorded with one statement. */
  private readonly recorder = new Coalescer<Attempt>((attempts) => this.record(attempts), { maxBatch: 100, parallel: 2 });

  constructor(
    private readonly database: Database,
    private readonly queues: QueueRegistry,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queues.process<DeliveryJob>(QUEUES.customerWebhooks, (job) => this.deliverTo(job.data.endpointId), {
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

  /** Before the queue workers close: a running endpoint job stops claiming and ends once its attempts in flight are recorded. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.listener?.end().catch(() => undefined);
    await this.sweeping;
  }

  /** Sends the endpoint's due deliveries now (after a manual retry made one due). */
  async sendNow(endpointId: string): Promise<void> {
    await this.enqueue(endpointId, `endpoint.${endpointId}.now.${Date.now()}`);
  }

  private async enqueue(endpointId: string, jobId = `endpoint.${endpointId}`, delay = 0): Promise<void> {
    await this.queues.add(QUEUES.customerWebhooks, 'deliver', { endpointId }, { ...JOB_OPTIONS, jobId, delay });
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('notification', () => {
      this.notified += 1;
      this.sweep();
    });
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
    const due = (await this.database.rows(
      `SELECT DISTINCT endpoint_id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())`,
    )) as { endpoint_id: string }[];
    if (due.length === 0) return;
    // While an endpoint's job waits or runs, adding it again is a no-op.
    await this.queues.queue<DeliveryJob>(QUEUES.customerWebhooks).addBulk(
      due.map((d) => ({
        name: 'deliver',
        data: { endpointId: d.endpoint_id },
        opts: { ...JOB_OPTIONS, jobId: `endpoint.${d.endpoint_id}` },
      })),
    );
  }

  /**
   * Keeps up to `endpointConcurrency` requests to the endpoint in flight until none is due: a sliding
   * window, refilled with one claim whenever half of it has been answered, so neither the claims nor
   * the recording of outcomes (which goes on beside the sending) stall it. One job per endpoint runs
   * in this process at a time; a job that arrives while another runs only tells it to look again.
   */
  private async deliverTo(endpointId: string): Promise<void> {
    const running = this.running.get(endpointId);
    if (running) {
      running.lookAgain = true;
      return;
    }
    const state = { lookAgain: false };
    this.running.set(endpointId, state);
    try {
      await this.sendWindow(endpointId, state);
    } finally {
      this.running.delete(endpointId);
    }
  }

  private async sendWindow(endpointId: string, state: { lookAgain: boolean }): Promise<void> {
    const limit = this.config.webhooks.endpointConcurrency;
    const refillAt = Math.floor(limit / 2);
    /** Requests the endpoint has not answered yet. */
    let unanswered = 0;
    /** Attempts whose outcome is not recorded yet, answered or not (a room's next event waits for its predecessor's record). */
    const unrecorded = new Set<Promise<void>>();
    let failure: unknown = null;
    // Whether a claim may find more: after one that filled the window, a notification, or an
    // outcome recorded (which lets the next delivery of its room go).
    let mayFindMore = true;
    let seen = this.notified;
    let wake: () => void = () => undefined;
    try {
      while (!this.stopped && failure === null) {
        if (mayFindMore && unanswered <= refillAt && unrecorded.size < limit) {
          seen = this.notified;
          state.lookAgain = false;
          const wanted = limit - unanswered;
          const batch = await this.claim(endpointId, wanted);
          mayFindMore = batch.length === wanted || this.notified !== seen || state.lookAgain;
          for (const delivery of batch) {
            unanswered++;
            const attempt: Promise<void> = this.post(delivery)
              .finally(() => {
                unanswered--;
                wake();
              })
              .then((result) => this.recorder.submit({ endpointId, delivery, result }))
              .catch((error: unknown) => {
                failure ??= error;
              })
              .finally(() => {
                unrecorded.delete(attempt);
                mayFindMore = true;
                wake();
              });
            unrecorded.add(attempt);
          }
          if (batch.length > 0) continue;
        }
        if (unrecorded.size === 0) {
          if (!mayFindMore && this.notified === seen && !state.lookAgain) return;
          mayFindMore = true;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      await Promise.all(unrecorded);
    }
    if (failure !== null) throw failure;
  }

  /** Leases the endpoint's due deliveries that head their lanes (one per room at most), oldest first. */
  private async claim(endpointId: string, count: number): Promise<Claimed[]> {
    const leaseSeconds = (2 * this.config.webhooks.timeoutMs + 1_000) / 1000;
    const rows = (await this.database.rows(
      `UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $3)
         FROM webhook_events ev, webhook_endpoints w
        WHERE ev.seq = d.event_seq AND w.id = d.endpoint_id AND w.deleted_at IS NULL AND d.id IN (
          SELECT c.id FROM webhook_deliveries c
           WHERE c.endpoint_id = $1 AND c.status = 'pending' AND c.next_attempt_at <= now()
             AND (c.locked_until IS NULL OR c.locked_until < now())
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                              WHERE p.endpoint_id = c.endpoint_id AND p.lane = c.lane AND p.status = 'pending' AND p.seq < c.seq)
           ORDER BY c.seq LIMIT $2 FOR UPDATE OF c SKIP LOCKED)
        RETURNING d.id, d.attempts, d.max_attempts, ev.id AS event_id, ev.body, w.url, w.secret`,
      [endpointId, count, leaseSeconds],
    )) as Claimed[];
    return rows;
  }

  private async post(delivery: Claimed): Promise<AttemptResult> {
    const now = new Date();
    const headers = {
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(delivery.secret).sign(delivery.event_id, now, delivery.body),
    };
    return postWebhook(delivery.url, headers, delivery.body, {
      timeoutMs: this.config.webhooks.timeoutMs,
      allowPrivate: this.config.webhooks.allowPrivateUrls,
    });
  }

  /** One statement for the outcomes that came back together; a delivery no longer pending (its endpoint was deleted meanwhile) is left as it is. */
  private async record(attempts: Attempt[]): Promise<void> {
    const schedule = this.config.webhooks.retryScheduleMs;
    const outcomes = attempts.map(({ endpointId, delivery, result }) => {
      const attempts = delivery.attempts + 1;
      const status = result.ok ? 'delivered' : attempts >= delivery.max_attempts ? 'failed' : 'pending';
      const waitMs = status === 'pending' ? (schedule[Math.min(attempts, schedule.length) - 1] ?? 0) : null;
      return { endpointId, id: delivery.id, attempts, status, code: result.statusCode, error: result.ok ? null : result.error, waitMs };
    });
    await this.database.rows(
      `UPDATE webhook_deliveries d SET status = o.status, attempts = o.attempts, last_status_code = o.code, last_error = o.error,
              delivered_at = CASE WHEN o.status = 'delivered' THEN now() END,
              next_attempt_at = CASE WHEN o.status = 'pending' THEN now() + make_interval(secs => o.wait_ms / 1000.0) END,
              locked_until = NULL
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::int[]) AS o(id, attempts, status, code, error, wait_ms)
        WHERE d.id = o.id AND d.status = 'pending'`,
      [
        outcomes.map((o) => o.id),
        outcomes.map((o) => o.attempts),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.code),
        outcomes.map((o) => o.error),
        outcomes.map((o) => o.waitMs),
      ],
    );
    for (const o of outcomes) this.metrics.customerDeliveries.inc({ outcome: o.status === 'pending' ? 'retried' : o.status });
    // Each endpoint's earliest retry comes back by itself, not only at the next sweep.
    const earliestRetry = new Map<string, number>();
    for (const o of outcomes) {
      if (o.waitMs !== null) earliestRetry.set(o.endpointId, Math.min(o.waitMs, earliestRetry.get(o.endpointId) ?? Infinity));
    }
    for (const [endpointId, waitMs] of earliestRetry) {
      await this.enqueue(endpointId, `endpoint.${endpointId}.retry.${Date.now()}`, waitMs);
    }
  }
}
