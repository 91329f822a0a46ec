import { QUEUES } from '@app/contracts';
import { ServiceUnavailableError } from '../../common/errors/service-unavailable';
import type { HotRowWritesService } from '../../database/hot-row-writes.service';
import type { Tx } from '../../database/sql';
import type { OutboxPublisher } from '../../queue/outbox.publisher';
import type { QueueRegistry } from '../../queue/queue.registry';
import type { InboundEventsService } from '../webhooks/inbound-events.service';
import type { LiveKitEventsService } from './livekit-events.service';
import { LiveKitEventsWorker } from './livekit-events.worker';
import type { RoomSettlementService } from './room-settlement.service';

type Handler = (job: { name: string; data: unknown }) => Promise<void>;

/** The worker over doubles: applying fails for any transaction holding `bad`, or with `failure` when set. */
function worker(options: { failure?: Error } = {}) {
  const transactions: string[][] = [];
  const applied: string[] = [];
  let handler: Handler | undefined;
  const queues = {
    process: (queue: string, run: Handler) => {
      if (queue === QUEUES.livekitEvents) handler = run;
    },
  } as unknown as QueueRegistry;
  const events = {
    applyEach: async (_provider: string, eventIds: string[], apply: (tx: Tx, payloads: unknown[]) => Promise<void>) => {
      transactions.push(eventIds);
      if (options.failure) throw options.failure;
      if (eventIds.includes('bad')) throw new Error('cannot apply bad');
      await apply({} as Tx, eventIds);
      applied.push(...eventIds);
      return true;
    },
  } as unknown as InboundEventsService;
  const processor = { applyBatch: async () => [] } as unknown as LiveKitEventsService;
  const outbox = { write: async () => undefined, flush: async () => undefined } as unknown as OutboxPublisher;
  const hot = { deferWithin: async (_tx: Tx, body: () => Promise<unknown>) => body() } as unknown as HotRowWritesService;
  new LiveKitEventsWorker(queues, events, processor, outbox, hot, {} as RoomSettlementService).onModuleInit();
  const run = (ids: string[]) => handler!({ name: 'events', data: { events: ids.map((id) => ({ id, subject: 'room' })) } });
  return { run, transactions, applied };
}

describe('LiveKitEventsWorker', () => {
  it("applies a job's events in one transaction", async () => {
    const w = worker();
    await w.run(['a', 'b', 'c']);
    expect(w.transactions).toEqual([['a', 'b', 'c']]);
    expect(w.applied).toEqual(['a', 'b', 'c']);
  });

  it('applies the good events of a job that holds a bad one, and fails the job with the bad one', async () => {
    const w = worker();
    await expect(w.run(['a', 'bad', 'c'])).rejects.toThrow('cannot apply bad');
    expect(w.applied).toEqual(['a', 'c']);
    expect(w.transactions).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('fails the job at once, without trying each event, when the database is down', async () => {
    const w = worker({ failure: new ServiceUnavailableError('postgres', 'database unavailable') });
    await expect(w.run(['a', 'b'])).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(w.transactions).toEqual([['a', 'b']]);
  });
});
