import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Writes one additive change (a vector of deltas) to one hot row. */
type DeltaWrite = (delta: number[]) => Promise<unknown>;

interface PendingWrite {
  delta: number[];
  write: DeltaWrite;
}

/**
 * Writes to rows that every transaction of an organization touches (its balance, its usage slots)
 * serialize those transactions. Inside `deferWithin`, such writes are summed per row and run last,
 * just before commit, in the order of their keys, so their row locks are held briefly, taken once
 * per row however many events the transaction applies, and always in the same order (no deadlock
 * between two transactions). Elsewhere they run at once.
 */
@Injectable()
export class HotRowWrites {
  private readonly pending = new WeakMap<EntityManager, Map<string, PendingWrite>>();

  /** `key` names the row; callers that lock several hot rows at once must order them by key. */
  async add(tx: EntityManager, key: string, delta: number[], write: DeltaWrite): Promise<void> {
    const deferred = this.pending.get(tx);
    if (!deferred) {
      await write(delta);
      return;
    }
    const existing = deferred.get(key);
    if (existing) existing.delta = existing.delta.map((value, i) => value + delta[i]);
    else deferred.set(key, { delta: [...delta], write });
  }

  async deferWithin<T>(tx: EntityManager, body: () => Promise<T>): Promise<T> {
    const deferred = new Map<string, PendingWrite>();
    this.pending.set(tx, deferred);
    try {
      const result = await body();
      this.pending.delete(tx);
      for (const key of [...deferred.keys()].sort()) {
        const { delta, write } = deferred.get(key)!;
        if (delta.some((value) => value !== 0)) await write(delta);
      }
      return result;
    } finally {
      this.pending.delete(tx);
    }
  }
}
