import { Coalescer } from './coalescer';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback (and the coalescer's follow-up batches) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A runBatch whose calls stay open until the test finishes them, one by one. */
function controlledRunBatch<T>() {
  const calls: { items: T[]; done: Deferred }[] = [];
  let active = 0;
  let maxActive = 0;
  const runBatch = async (items: T[]): Promise<void> => {
    const done = deferred();
    calls.push({ items, done });
    active++;
    maxActive = Math.max(maxActive, active);
    try {
      await done.promise;
    } finally {
      active--;
    }
  };
  return {
    runBatch,
    calls,
    get active() {
      return active;
    },
    get maxActive() {
      return maxActive;
    },
  };
}

/** Records whether (and how) a submit's promise settled. */
function track(promise: Promise<void>) {
  const state: { status: 'pending' | 'resolved' | 'rejected'; error?: unknown } = { status: 'pending' };
  promise.then(
    () => (state.status = 'resolved'),
    (error: unknown) => {
      state.status = 'rejected';
      state.error = error;
    },
  );
  return state;
}

/**
 * A coalescer (parallel 1) whose first batch is held open, so the items submitted next all wait and
 * form one batch for `runBatch`; `release` lets the held batch finish and waits for the rest to run.
 */
function heldOpen(runBatch: (items: string[]) => Promise<void>) {
  const hold = deferred();
  const coalescer = new Coalescer<string>((items) => (items[0] === 'hold' ? hold.promise : runBatch(items)), {
    maxBatch: 10,
    parallel: 1,
  });
  const held = coalescer.submit('hold');
  const release = async () => {
    hold.resolve();
    await held;
    await settle();
  };
  return { coalescer, release };
}

describe('Coalescer', () => {
  it('coalesces items submitted while a batch runs into the next batch', async () => {
    const batches = controlledRunBatch<number>();
    const coalescer = new Coalescer(batches.runBatch, { maxBatch: 100, parallel: 1 });

    const first = coalescer.submit(1);
    const rest = [2, 3, 4, 5, 6].map((item) => coalescer.submit(item));
    await settle();
    expect(batches.calls.map((call) => call.items)).toEqual([[1]]);

    batches.calls[0].done.resolve();
    await settle();
    expect(batches.calls.map((call) => call.items)).toEqual([[1], [2, 3, 4, 5, 6]]);

    batches.calls[1].done.resolve();
    await expect(Promise.all([first, ...rest])).resolves.toBeDefined();
    expect(batches.calls).toHaveLength(2);
  });

  it('caps a batch at maxBatch items and the batches running at once at parallel', async () => {
    const batches = controlledRunBatch<number>();
    const coalescer = new Coalescer(batches.runBatch, { maxBatch: 3, parallel: 2 });

    const items = Array.from({ length: 12 }, (_, i) => i);
    const all = Promise.all(items.map((item) => coalescer.submit(item)));
    await settle();
    expect(batches.active).toBe(2);

    // Finish the open batches one at a time until every item has run.
    let finished = 0;
    while (finished < batches.calls.length) {
      batches.calls[finished++].done.resolve();
      await settle();
      expect(batches.active).toBeLessThanOrEqual(2);
    }
    await all;

    expect(batches.maxActive).toBe(2);
    const sizes = batches.calls.map((call) => call.items.length);
    expect(Math.max(...sizes)).toBe(3);
    expect(batches.calls.flatMap((call) => call.items).sort((a, b) => a - b)).toEqual(items);
  });

  it('settles a submit only after the batch holding its item succeeded', async () => {
    const batches = controlledRunBatch<string>();
    const coalescer = new Coalescer(batches.runBatch, { maxBatch: 10, parallel: 1 });

    const a = track(coalescer.submit('a'));
    const b = track(coalescer.submit('b'));
    const c = track(coalescer.submit('c'));
    await settle();
    expect(batches.calls.map((call) => call.items)).toEqual([['a']]);
    expect([a.status, b.status, c.status]).toEqual(['pending', 'pending', 'pending']);

    batches.calls[0].done.resolve();
    await settle();
    expect([a.status, b.status, c.status]).toEqual(['resolved', 'pending', 'pending']);
    expect(batches.calls[1].items).toEqual(['b', 'c']);

    batches.calls[1].done.resolve();
    await settle();
    expect([a.status, b.status, c.status]).toEqual(['resolved', 'resolved', 'resolved']);
  });

  it('retries a failed batch one item at a time, so only the bad item fails', async () => {
    const batchError = new Error('batch failed');
    const badError = new Error('item bad failed');
    const runBatch = jest.fn(async (items: string[]) => {
      await Promise.resolve();
      if (items.includes('bad')) throw items.length === 1 ? badError : batchError;
    });
    const { coalescer, release } = heldOpen(runBatch);

    const good1 = track(coalescer.submit('good1'));
    const bad = track(coalescer.submit('bad'));
    const good2 = track(coalescer.submit('good2'));
    await release();

    expect(runBatch.mock.calls.map(([items]) => items)).toEqual([['good1', 'bad', 'good2'], ['good1'], ['bad'], ['good2']]);
    expect(good1).toEqual({ status: 'resolved' });
    expect(good2).toEqual({ status: 'resolved' });
    expect(bad).toEqual({ status: 'rejected', error: badError });
  });

  it('does not resolve the items of a failed batch before their own retry succeeded', async () => {
    const retries = new Map<string, Deferred>();
    const runBatch = jest.fn(async (items: string[]): Promise<void> => {
      if (items.length > 1) throw new Error('batch failed');
      const retry = deferred();
      retries.set(items[0], retry);
      return retry.promise;
    });
    const { coalescer, release } = heldOpen(runBatch);

    const x = track(coalescer.submit('x'));
    const y = track(coalescer.submit('y'));
    await release();

    // Batch [x, y] failed and x's solo retry is still running.
    expect(runBatch).toHaveBeenCalledWith(['x', 'y']);
    expect(runBatch).toHaveBeenCalledWith(['x']);
    expect([x.status, y.status]).toEqual(['pending', 'pending']);

    retries.get('x')!.resolve();
    await settle();
    expect(x.status).toBe('resolved');
    expect(y.status).toBe('pending');

    retries.get('y')!.resolve();
    await settle();
    expect([x.status, y.status]).toEqual(['resolved', 'resolved']);
  });

  it('fails every item of a batch at once, without retrying them one by one, when the database did not answer', async () => {
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const runBatch = jest.fn(async (items: string[]): Promise<void> => {
      await Promise.resolve(items);
      throw outage;
    });
    const { coalescer, release } = heldOpen(runBatch);

    const items = ['a', 'b', 'c'].map((item) => track(coalescer.submit(item)));
    await release();

    expect(runBatch.mock.calls.map(([batch]) => batch)).toEqual([['a', 'b', 'c']]);
    expect(items).toEqual(items.map(() => ({ status: 'rejected', error: outage })));
  });

  it('rejects the one submit of a failed single-item batch without retrying it', async () => {
    const error = new Error('boom');
    const runBatch = jest.fn(async (): Promise<void> => {
      throw error;
    });
    const coalescer = new Coalescer(runBatch, { maxBatch: 10, parallel: 1 });

    await expect(coalescer.submit('only')).rejects.toBe(error);
    expect(runBatch).toHaveBeenCalledTimes(1);
  });

  it('keeps working after a failure', async () => {
    const runBatch = jest.fn(async (items: string[]) => {
      if (items.includes('bad')) throw new Error('bad');
    });
    const coalescer = new Coalescer(runBatch, { maxBatch: 10, parallel: 1 });

    await expect(coalescer.submit('bad')).rejects.toThrow('bad');
    await expect(coalescer.submit('next')).resolves.toBeUndefined();
    await expect(Promise.all([coalescer.submit('a'), coalescer.submit('b')])).resolves.toEqual([undefined, undefined]);
    expect(runBatch.mock.calls.map(([items]) => items)).toEqual([['bad'], ['next'], ['a'], ['b']]);
  });
});
