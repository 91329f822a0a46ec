import { AGENT_CONSUMED_QUEUES, API_CONSUMED_QUEUES } from '@app/contracts';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { PeriodicJobsScheduler } from '../../queue/periodic-jobs.scheduler';
import { QueueRegistry } from '../../queue/queue.registry';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import { MetricsRepository } from './metrics.repository';

const JOB_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * Gauges read when scraped: queue depths, the periodic jobs' last runs, the oldest unapplied inbound
 * event, live rooms and connections.
 */
@Injectable()
export class MetricsCollectorsService implements OnModuleInit {
  private readonly logger = new Logger(MetricsCollectorsService.name);

  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly reads: MetricsRepository,
    private readonly queues: QueueRegistry,
    private readonly periodic: PeriodicJobsScheduler,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    const logger = this.logger;
    // A scrape during an outage still answers, without these series.
    const guard = <G>(what: string, collect: (this: G) => Promise<void>) =>
      async function (this: G): Promise<void> {
        await collect.call(this).catch((error: Error) => logger.warn(`Metrics: reading ${what} failed: ${error.message}`));
      };
    const reads = this.reads;
    const queues = this.queues;
    const periodic = this.periodic;
    new Gauge({
      name: 'bullmq_queue_jobs',
      help: 'Jobs in each BullMQ queue, by state',
      labelNames: ['queue', 'state'] as const,
      registers,
      collect: guard('queue depths', async function (this: Gauge<'queue' | 'state'>) {
        const names = [...new Set([...API_CONSUMED_QUEUES, ...AGENT_CONSUMED_QUEUES])];
        const counts = await Promise.all(names.map((name) => queues.queue(name).getJobCounts(...JOB_STATES)));
        names.forEach((name, i) => {
          for (const state of JOB_STATES) this.set({ queue: name, state }, counts[i][state] ?? 0);
        });
      }),
    });
    // The deployment's last runs, recorded in Redis by whichever process ran them: the same in every process.
    new Gauge({
      name: 'periodic_job_last_run_timestamp_seconds',
      help: 'When the last run of each periodic job started (any process of the deployment), seconds since the epoch',
      labelNames: ['job'] as const,
      registers,
      collect: guard('periodic job runs', async function (this: Gauge<'job'>) {
        for (const run of await periodic.lastRuns()) this.set({ job: run.job }, run.startedAt / 1000);
      }),
    });
    new Gauge({
      name: 'periodic_job_last_duration_seconds',
      help: 'How long the last run of each periodic job took (any process of the deployment)',
      labelNames: ['job'] as const,
      registers,
      collect: guard('periodic job durations', async function (this: Gauge<'job'>) {
        for (const run of await periodic.lastRuns()) this.set({ job: run.job }, run.durationMs / 1000);
      }),
    });
    new Gauge({
      name: 'periodic_job_last_run_ok',
      help: 'Whether the last run of each periodic job succeeded (1) or failed (0), any process of the deployment',
      labelNames: ['job'] as const,
      registers,
      collect: guard('periodic job outcomes', async function (this: Gauge<'job'>) {
        for (const run of await periodic.lastRuns()) this.set({ job: run.job }, run.outcome === 'ok' ? 1 : 0);
      }),
    });
    new Gauge({
      name: 'inbound_webhook_oldest_unapplied_seconds',
      help: 'Age of the oldest stored inbound webhook event not applied yet (0 when none), by provider',
      labelNames: ['provider'] as const,
      registers,
      collect: guard('unapplied events', async function (this: Gauge<'provider'>) {
        for (const row of await reads.unappliedInboundAges()) this.set({ provider: row.provider }, row.seconds);
      }),
    });
    new Gauge({
      name: 'rooms_active',
      help: 'Rooms with status active',
      registers,
      collect: guard('active rooms', async function (this: Gauge) {
        this.set(await reads.activeRooms());
      }),
    });
    new Gauge({
      name: 'connections_open',
      help: 'Participant connections open now (translators included)',
      registers,
      collect: guard('open connections', async function (this: Gauge) {
        this.set(await reads.openConnections());
      }),
    });
  }
}
