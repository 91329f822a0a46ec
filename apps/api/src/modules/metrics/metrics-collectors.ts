import { AGENT_CONSUMED_QUEUES, API_CONSUMED_QUEUES } from '@app/contracts';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { QueueRegistry } from '../../queue/queue-registry';
import { Metrics } from '../../common/metrics/metrics';
import { MetricsRepository } from './metrics.repository';

const JOB_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Gauges read when scraped: queue depths, the oldest unapplied inbound event, live rooms and connections. */
@Injectable()
export class MetricsCollectors implements OnModuleInit {
  private readonly logger = new Logger(MetricsCollectors.name);

  constructor(
    private readonly metrics: Metrics,
    private readonly reads: MetricsRepository,
    private readonly queues: QueueRegistry,
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
