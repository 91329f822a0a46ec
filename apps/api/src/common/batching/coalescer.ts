import { dependencyFailure } from '../errors/service-unavailable';

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface CoalescerOptions {
  /** Most items one call of `runBatch` gets. */
  maxBatch: number;
  /** Batches that may run at once. */
  parallel: number;
}

/**
 * Coalesces work submitted at the same time: while batches run, new items wait and form the next
 * batch, so one round trip (one insert, one transaction) serves many callers. Each caller's promise
 * settles when the batch holding its item has succeeded. A batch that fails is retried one item at a
 * time, so a bad item fails alone and never takes the others with it; a batch that failed because
 * the database or Redis is down or did not answer fails all its callers at once instead (one by one,
 * each would wait out the same timeout again).
 */
export class Coalescer<T> {
  private readonly waiting: Waiting<T>[] = [];
  private running = 0;

  constructor(
    private readonly runBatch: (items: T[]) => Promise<void>,
    private readonly options: CoalescerOptions,
  ) {}

  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.running < this.options.parallel && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.drain();
      });
    }
  }

  private async run(batch: Waiting<T>[]): Promise<void> {
    try {
      await this.runBatch(batch.map((waiting) => waiting.item));
      for (const waiting of batch) waiting.resolve();
    } catch (error) {
      if (batch.length === 1 || dependencyFailure(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) await this.runBatch([waiting.item]).then(waiting.resolve, waiting.reject);
    }
  }
}
