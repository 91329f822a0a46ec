import { Coalescer, type CoalescerOptions } from './coalescer';

interface Request<K, V> {
  key: K;
  value?: V;
}

/**
 * Loads values by key with one query for all the keys asked for at the same time (while earlier
 * queries run), instead of one round trip per caller. A key not found loads as undefined.
 */
export class BatchedLoader<K, V> {
  private readonly coalescer: Coalescer<Request<K, V>>;

  constructor(loadMany: (keys: K[]) => Promise<Map<K, V>>, options: CoalescerOptions) {
    this.coalescer = new Coalescer<Request<K, V>>(async (requests) => {
      const found = await loadMany([...new Set(requests.map((request) => request.key))]);
      for (const request of requests) request.value = found.get(request.key);
    }, options);
  }

  async load(key: K): Promise<V | undefined> {
    const request: Request<K, V> = { key };
    await this.coalescer.submit(request);
    return request.value;
  }
}
