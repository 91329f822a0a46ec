import { QUEUES } from '@app/contracts';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Coalescer } from '../../common/batching/coalescer';
import { DurableQueueService, type DurableJob, type DurableSource } from '../../queue/durable-queue.service';
import { QueueRegistry } from '../../queue/queue.registry';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import { postWebhook, type AttemptResult } from './webhook-sender';
import { signWebhook } from './webhook-signature';
import { attemptOutcome, earliestRetries } from './delivery-retry-policy';
import { WebhookDeliveriesRepository, type ClaimedDelivery } from './webhook-deliveries.repository';
import { DatabaseClient } from '../../database/database.client';

export interface DeliveryJob {
  endpointId: string;
}

interface Attempt {
  endpointId: string;
  delivery: ClaimedDelivery;
  result: AttemptResult;
}

/** How often due deliveries are looked for besides the commit notifications (retries, crashes). */
const SWEEP_INTERVAL_MS = 1_000;
/** Notified by the commits that insert deliveries (a statement trigger, migration Integrations). */
const CHANNEL = 'webhook_deliveries';
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

/**
 * Sends the deliveries the outbox holds, by endpoint. Due deliveries are a source of the durable
 * queue: a commit that inserted deliveries notifies it, and its sweep (then, and every second)
 * enqueues one job per endpoint with due deliveries (job id `endpoint.<id>`, so an endpoint has one
 * job at a time). The job claims the endpoint's due
 * deliveries that head their lanes (a room's earlier events first), with a lease in the database
 * longer than an attempt can take, posts them signed, records each outcome as it comes back
 * (delivered, a retry at the schedule's next wait, or failed; outcomes of all endpoints that come
 * back together share one statement), and claims more while more are due, until the process stops
 * (the durable queue's shutdown). A worker that dies mid-attempt loses its lease; the delivery is
 * then sent again.
 * A slow endpoint holds its own job only: at most `endpointConcurrency` of its deliveries are in
 * flight, and the other endpoints' jobs run beside it.
 */
@Injectable()
export class CustomerWebhookDeliveryWorker implements OnModuleInit {
  /** Counts commits that inserted deliveries: a job that found nothing due looks again if it moved meanwhile. */
  private notified = 0;
  /** The endpoints whose job runs in this process; a second job for one of them only asks it to look again. */
  private readonly running = new Map<string, { lookAgain: boolean }>();
  /** Outcomes of attempts that come back at the same time are recorded with one statement. */
  private readonly recorder = new Coalescer<Attempt>((attempts) => this.record(attempts), { maxBatch: 100, parallel: 1 });

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly database: DatabaseClient,
    private readonly queues: QueueRegistry,
    private readonly durable: DurableQueueService,
    private readonly metrics: MetricsRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // Due deliveries are a source of the durable queue where they are sent: swept every second and
    // at each commit that inserts deliveries.
    const source: DurableSource = {
      name: 'customer-webhook-deliveries',
      sweepEveryMs: SWEEP_INTERVAL_MS,
      channel: CHANNEL,
      notified: () => {
        this.notified += 1;
      },
      due: () => this.dueJobs(),
    };
    if (config.queue.runWorkers) durable.register(source);
  }

  onModuleInit(): void {
    this.queues.process<DeliveryJob>(QUEUES.customerWebhooks, (job) => this.deliverTo(job.data.endpointId), {
      concurrency: this.config.webhooks.concurrency,
    });
  }

  /** Sends the endpoint's due deliveries now (after a manual retry made one due). */
  async sendNow(endpointId: string): Promise<void> {
    await this.enqueue(endpointId, `endpoint.${endpointId}.now.${Date.now()}`);
  }

  private async enqueue(endpointId: string, jobId: string, delay = 0): Promise<void> {
    await this.queues.add(QUEUES.customerWebhooks, 'deliver', { endpointId }, { ...JOB_OPTIONS, jobId, delay });
  }

  /** One job per endpoint with due deliveries; while an endpoint's job waits or runs, adding it again is a no-op. */
  private async dueJobs(): Promise<DurableJob[]> {
    const endpointIds = await this.deliveries.dueEndpoints();
    return endpointIds.map((endpointId) => {
      const payload: DeliveryJob = { endpointId };
      return { queue: QUEUES.customerWebhooks, name: 'deliver', jobId: `endpoint.${endpointId}`, payload, options: JOB_OPTIONS };
    });
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
      while (!this.durable.stopping && failure === null) {
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
  private async claim(endpointId: string, count: number): Promise<ClaimedDelivery[]> {
    const leaseSeconds = (2 * this.config.webhooks.timeoutMs + 1_000) / 1000;
    return this.database.oneStatement((tx) => this.deliveries.claim(endpointId, count, leaseSeconds, tx));
  }

  private async post(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(delivery.secret, delivery.eventId, timestamp, delivery.body),
    };
    return postWebhook(delivery.url, headers, delivery.body, {
      timeoutMs: this.config.webhooks.timeoutMs,
      allowPrivate: this.config.webhooks.allowPrivateUrls,
    });
  }

  /** One statement for the outcomes that came back together; a delivery no longer pending (its endpoint was deleted meanwhile) is left as it is. */
  private async record(attempts: Attempt[]): Promise<void> {
    const schedule = this.config.webhooks.retryScheduleMs;
    const outcomes = attempts.map(({ endpointId, delivery, result }) => ({ endpointId, ...attemptOutcome(delivery, result, schedule) }));
    await this.database.oneStatement((tx) => this.deliveries.record(outcomes, tx));
    for (const o of outcomes) this.metrics.customerDeliveries.inc({ outcome: o.status === 'pending' ? 'retried' : o.status });
    // Each endpoint's earliest retry comes back by itself, not only at the next sweep.
    for (const [endpointId, waitMs] of earliestRetries(outcomes)) {
      await this.enqueue(endpointId, `endpoint.${endpointId}.retry.${Date.now()}`, waitMs);
    }
  }
}
