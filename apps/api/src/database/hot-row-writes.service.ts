import { Injectable } from '@nestjs/common';
import type { Tx } from './sql';

/** Writes one additive change (a vector of deltas) to one hot row. */
type DeltaWrite = (delta: number[]) => Promise<unknown>;
/** Inserts rows that nothing in the transaction reads back (one multi-row insert). */
type RowsWrite<R> = (rows: R[]) => Promise<unknown>;
/** Writes the summed deltas of several rows of one table with one statement. */
export type GroupWrite = (rows: { row: string; delta: number[] }[]) => Promise<unknown>;

type PendingWrite =
  | { kind: 'sum'; delta: number[]; write: DeltaWrite }
  | { kind: 'rows'; rows: unknown[]; write: RowsWrite<unknown> }
  | { kind: 'group'; deltas: Map<string, number[]>; write: GroupWrite };

/**
 * Writes to rows that every transaction of an organization touches (its balance, its usage slots,
 * a room's totals) serialize those transactions. Inside `deferWithin`, such writes are summed per
 * row and run last, just before commit, in the order of their keys, so their row locks are held
 * briefly, taken once per row however many events the transaction applies, and always in the same
 * order (no deadlock between two transactions). Appended rows become one insert. Elsewhere every
 * write runs at once.
 */
@Injectable()
export class HotRowWritesService {
  private readonly pending = new WeakMap<Tx, Map<string, PendingWrite>>();

  /** `key` names the row; callers that lock several hot rows at once must order them by key. */
  async add(tx: Tx, key: string, delta: number[], write: DeltaWrite): Promise<void> {
    const deferred = this.pending.get(tx);
    if (!deferred) {
      await write(delta);
      return;
    }
    const existing = deferred.get(key);
    if (existing?.kind === 'sum') existing.delta = existing.delta.map((value, i) => value + delta[i]);
    else deferred.set(key, { kind: 'sum', delta: [...delta], write });
  }

  /**
   * Like `add`, for rows the transaction already holds locked (its rooms): the deltas are summed per
   * `row`, and all rows of `group` are written by one call, in row order, at the group key's turn.
   */
  async addToGroup(tx: Tx, group: string, row: string, delta: number[], write: GroupWrite): Promise<void> {
    const deferred = this.pending.get(tx);
    if (!deferred) {
      await write([{ row, delta }]);
      return;
    }
    const existing = deferred.get(group);
    if (existing?.kind !== 'group') {
      deferred.set(group, { kind: 'group', deltas: new Map([[row, [...delta]]]), write });
      return;
    }
    const sum = existing.deltas.get(row);
    existing.deltas.set(row, sum ? sum.map((value, i) => value + delta[i]) : [...delta]);
  }

  /** Queues `row` for one insert with the other rows of `key`. */
  async append<R>(tx: Tx, key: string, row: R, write: RowsWrite<R>): Promise<void> {
    const deferred = this.pending.get(tx);
    if (!deferred) {
      await write([row]);
      return;
    }
    const existing = deferred.get(key);
    if (existing?.kind === 'rows') existing.rows.push(row);
    else deferred.set(key, { kind: 'rows', rows: [row], write: write as RowsWrite<unknown> });
  }

  /** Runs the pending write of `key` now, for a read in the same transaction that must see it. */
  async flush(tx: Tx, key: string): Promise<void> {
    const deferred = this.pending.get(tx);
    const write = deferred?.get(key);
    if (!deferred || !write) return;
    deferred.delete(key);
    await run(write);
  }

  async deferWithin<T>(tx: Tx, body: () => Promise<T>): Promise<T> {
    const deferred = new Map<string, PendingWrite>();
    this.pending.set(tx, deferred);
    try {
      const result = await body();
      this.pending.delete(tx);
      for (const key of [...deferred.keys()].sort()) await run(deferred.get(key)!);
      return result;
    } finally {
      this.pending.delete(tx);
    }
  }
}

const changes = (delta: number[]) => delta.some((value) => value !== 0);

async function run(pending: PendingWrite): Promise<void> {
  if (pending.kind === 'rows') await pending.write(pending.rows);
  else if (pending.kind === 'sum') {
    if (changes(pending.delta)) await pending.write(pending.delta);
  } else {
    const rows = [...pending.deltas]
      .filter(([, delta]) => changes(delta))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([row, delta]) => ({ row, delta }));
    if (rows.length > 0) await pending.write(rows);
  }
}
