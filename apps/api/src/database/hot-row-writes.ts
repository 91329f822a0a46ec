import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

type Write = () => Promise<unknown>;

/**
 * Writes to rows that every transaction of an organization touches (its balance, its usage slot)
 * serialize those transactions. Inside `deferWithin`, such writes run last, just before commit,
 * so their row locks are held for as short a time as possible; elsewhere they run at once.
 */
@Injectable()
export class HotRowWrites {
  private readonly pending = new WeakMap<EntityManager, Write[]>();

  async run(tx: EntityManager, write: Write): Promise<void> {
    const queue = this.pending.get(tx);
    if (queue) queue.push(write);
    else await write();
  }

  async deferWithin<T>(tx: EntityManager, body: () => Promise<T>): Promise<T> {
    const queue: Write[] = [];
    this.pending.set(tx, queue);
    try {
      const result = await body();
      this.pending.delete(tx);
      for (const write of queue) await write();
      return result;
    } finally {
      this.pending.delete(tx);
    }
  }
}
