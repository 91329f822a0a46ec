import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus registry (one per application, so several apps in one process never
 * share series) and the metrics that code increments. Gauges read at scrape time live in MetricsCollectorsService.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly inboundEvents = new Counter({
    name: 'inbound_webhook_events_total',
    help: 'Inbound webhook events (LiveKit, Stripe) stored, applied, and failed attempts to apply them',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly customerDeliveries = new Counter({
    name: 'customer_webhook_deliveries_total',
    help: 'Attempts to deliver customer webhooks, by outcome (delivered, retried: failed with a retry scheduled, failed: given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly periodicRuns = new Counter({
    name: 'periodic_job_runs_total',
    help: 'Runs of periodic jobs (sweeps, retention, cleanups) in this process, by job and outcome (ok, failed, skipped: its previous run here had not ended)',
    labelNames: ['job', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly periodicDuration = new Histogram({
    name: 'periodic_job_duration_seconds',
    help: 'Time periodic jobs took in this process, by job',
    labelNames: ['job'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly periodicPeriod = new Gauge({
    name: 'periodic_job_period_seconds',
    help: 'How often each periodic job runs, once for the whole deployment',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  readonly reconcileRuns = new Counter({
    name: 'livekit_reconcile_runs_total',
    help: 'Reconciliations with LiveKit run in this process, by outcome (ok; livekit_unavailable: ListRooms got no answer or an error, nothing changed; failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly reconcileDuration = new Histogram({
    name: 'livekit_reconcile_duration_seconds',
    help: 'Time a reconciliation with LiveKit took in this process',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly reconcileChanges = new Counter({
    name: 'livekit_reconcile_changes_total',
    help: 'What reconciliation with LiveKit concluded, by change (connection_ended, connection_opened, room_ended)',
    labelNames: ['change'] as const,
    registers: [this.registry],
  });

  readonly reconcileLiveKitErrors = new Counter({
    name: 'livekit_reconcile_livekit_errors_total',
    help: 'LiveKit listings that got no answer or an error during reconciliation, by call (ListRooms, ListParticipants)',
    labelNames: ['call'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
