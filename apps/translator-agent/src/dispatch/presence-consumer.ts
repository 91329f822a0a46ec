import {
  QUEUES,
  TRANSLATOR_AGENT_NAME,
  TRANSLATOR_JOBS,
  type TranslatorDismissJob,
  type TranslatorDispatchJob,
  type TranslatorGlossaryJob,
} from '@app/contracts';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { PresenceGateway } from './livekit-presence';
import { dispatchMetadata, planPresence, type PresenceAction, type PresenceWant } from './presence-plan';
import { RoomGlossariesStore } from '../glossaries/room-glossaries-store';
import { RoomGuard } from './room-guard';

export interface PresenceLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface PresenceConsumerOptions {
  connection: Redis;
  prefix: string;
  gateway: PresenceGateway;
  logger: PresenceLogger;
  concurrency?: number;
  /** Tries per job, the first included. The producer (the API's outbox) sets none, so they live here. */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt. */
  backoffMs?: number;
  maxBackoffMs?: number;
  lockWaitMs?: number;
}

export type PresenceOutcome =
  { applied: PresenceAction[] } | { stale: true; latest: number | null } | { glossaries: { version: number; kept: boolean } };

type PresenceJobData = TranslatorDispatchJob | TranslatorDismissJob | TranslatorGlossaryJob;

/** Exponential backoff: base, 2×base, 4×base, ... capped. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

function wantOf(job: Job<PresenceJobData>): PresenceWant {
  switch (job.name) {
    case TRANSLATOR_JOBS.dispatch:
      return { kind: 'dispatch', metadata: dispatchMetadata(job.data as TranslatorDispatchJob) };
    case TRANSLATOR_JOBS.dismiss:
      return { kind: 'dismiss' };
    default:
      throw new UnrecoverableError(`unknown job name "${job.name}" on ${QUEUES.translatorPresence}`);
  }
}

/**
 * Consumes translator.dispatch / translator.dismiss: places or removes the `translator` agent in the
 * LiveKit room. Each job reconciles LiveKit to its want under the room's lock, unless a newer
 * generation was already applied; so duplicated or reordered jobs never leave two translators, or
 * one in a room below two languages. The room's glossaries, in a dispatch or in a translator.glossary
 * job, are kept for its translator unless a newer version already is.
 */
export class PresenceConsumer {
  private worker: Worker<PresenceJobData> | null = null;
  private workerConnection: Redis | null = null;
  private readonly guard: RoomGuard;
  private readonly glossaries: RoomGlossariesStore;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly options: PresenceConsumerOptions) {
    this.guard = new RoomGuard(options.connection, options.prefix, 30_000, options.lockWaitMs ?? 10_000);
    this.glossaries = new RoomGlossariesStore(options.connection, options.prefix);
    this.maxAttempts = options.maxAttempts ?? 8;
    this.backoffMs = options.backoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
  }

  start(): Worker<PresenceJobData> {
    if (this.worker) return this.worker;
    this.workerConnection = this.options.connection.duplicate();
    const worker = new Worker<PresenceJobData>(QUEUES.translatorPresence, (job, token) => this.process(job, token), {
      connection: this.workerConnection,
      prefix: this.options.prefix,
      concurrency: this.options.concurrency ?? 8,
      // Failed jobs stay for inspection (the producer's own removeOnFail, if any, takes precedence).
      removeOnFail: { count: 50_000 },
      removeOnComplete: { count: 1_000 },
    });
    worker.on('error', (error) => this.options.logger.error(`translator-presence worker: ${error.message}`));
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    if (!this.worker) return;
    const worker = this.worker;
    this.worker = null;
    await worker.close();
    await this.workerConnection?.quit().catch(() => undefined);
    this.workerConnection = null;
  }

  private async process(job: Job<PresenceJobData>, token: string | undefined): Promise<PresenceOutcome> {
    try {
      return await this.handle(job);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const where = `translator ${job.name} (job ${job.id ?? '?'}) for room ${job.data.roomId} (${job.data.livekitRoom})`;
      if (!(error instanceof UnrecoverableError) && job.attemptsStarted < this.maxAttempts && token) {
        const delay = retryDelayMs(job.attemptsStarted, this.backoffMs, this.maxBackoffMs);
        this.options.logger.warn(
          `${where} failed (attempt ${job.attemptsStarted}/${this.maxAttempts}), retrying in ${delay} ms: ${message}`,
        );
        await job.moveToDelayed(Date.now() + delay, token);
        throw new DelayedError();
      }
      this.options.logger.error(`${where} failed for good after ${job.attemptsStarted} attempts, kept as failed: ${message}`);
      throw error;
    }
  }

  /** One job, start to end; exposed for tests that drive jobs without a queue. */
  async handle(job: Pick<Job<PresenceJobData>, 'name' | 'data'>): Promise<PresenceOutcome> {
    if (job.name === TRANSLATOR_JOBS.glossary) return this.keepGlossaries(job.data as TranslatorGlossaryJob);
    const want = wantOf(job as Job<PresenceJobData>);
    const { roomId, livekitRoom, generation } = job.data as TranslatorDispatchJob | TranslatorDismissJob;
    // Kept before the translator is placed, so that its job reads them when it starts; versions decide, not generations.
    if (job.name === TRANSLATOR_JOBS.dispatch) await this.keepGlossaries(job.data as TranslatorDispatchJob);
    return this.guard.withRoomLock(roomId, async () => {
      if (!(await this.guard.claim(roomId, generation))) {
        const latest = await this.guard.latest(roomId);
        this.options.logger.info(`dropped stale translator ${job.name} g${generation} for room ${roomId} (latest g${latest ?? '?'})`);
        return { stale: true, latest };
      }
      const state = await this.options.gateway.read(livekitRoom);
      const actions = planPresence(want, state, TRANSLATOR_AGENT_NAME);
      for (const action of actions) await this.options.gateway.apply(livekitRoom, TRANSLATOR_AGENT_NAME, action);
      if (actions.length > 0) this.options.logger.info(`room ${roomId} g${generation}: ${actions.map((a) => a.type).join(', ')}`);
      return { applied: actions };
    });
  }

  private async keepGlossaries(job: TranslatorGlossaryJob | TranslatorDispatchJob): Promise<PresenceOutcome> {
    const { glossaries } = job;
    const kept = await this.glossaries.keep(job.roomId, glossaries);
    if (kept) this.options.logger.info(`room ${job.roomId}: glossaries v${glossaries.version} kept for its translator`);
    return { glossaries: { version: glossaries.version, kept } };
  }
}
