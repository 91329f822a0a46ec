import type { Tx } from './sql';
import { HotRowWritesService } from './hot-row-writes.service';

/** Only ever used as a WeakMap key by HotRowWritesService. */
const manager = () => ({}) as Tx;

/** A write for row `key` that records each call (and its delta) in `log`. */
const recorder = (log: { key: string; delta: number[] }[], key: string) =>
  jest.fn(async (delta: number[]) => {
    log.push({ key, delta });
  });

describe('HotRowWritesService', () => {
  let hot: HotRowWritesService;

  beforeEach(() => {
    hot = new HotRowWritesService();
  });

  it('runs a write at once, with its delta, outside deferWithin', async () => {
    const write = jest.fn(async () => undefined);

    await hot.add(manager(), 'balance:o1', [5, -2], write);
    expect(write).toHaveBeenCalledTimes(1);
    expect(write).toHaveBeenCalledWith([5, -2]);

    await hot.add(manager(), 'balance:o1', [0, 0], write);
    expect(write).toHaveBeenCalledTimes(2);
  });

  it('sums the writes of one key into one write, run after the body, in ascending key order', async () => {
    const tx = manager();
    const events: string[] = [];
    const log: { key: string; delta: number[] }[] = [];
    const writeB = recorder(log, 'b');
    const writeA = recorder(log, 'a');
    const writeC = recorder(log, 'c');

    await hot.deferWithin(tx, async () => {
      await hot.add(tx, 'b', [1, 2, 3], writeB);
      await hot.add(tx, 'c', [7], writeC);
      await hot.add(tx, 'a', [10, 0], writeA);
      await hot.add(tx, 'b', [4, -2, 0], writeB);
      await hot.add(tx, 'a', [-1, 5], writeA);
      await hot.add(tx, 'b', [0, 0, 10], writeB);
      events.push(`body done, ${log.length} writes`);
    });

    expect(events).toEqual(['body done, 0 writes']);
    expect(log).toEqual([
      { key: 'a', delta: [9, 5] },
      { key: 'b', delta: [5, 0, 13] },
      { key: 'c', delta: [7] },
    ]);
    expect(writeA).toHaveBeenCalledTimes(1);
    expect(writeB).toHaveBeenCalledTimes(1);
    expect(writeC).toHaveBeenCalledTimes(1);
  });

  it('orders deferred writes by key, not by when they were added', async () => {
    const tx = manager();
    const log: { key: string; delta: number[] }[] = [];
    const keys = ['usage:o2:2', 'balance:o2', 'usage:o2:10', 'balance:o1'];

    await hot.deferWithin(tx, async () => {
      for (const key of keys) await hot.add(tx, key, [1], recorder(log, key));
    });

    expect(log.map((entry) => entry.key)).toEqual([...keys].sort());
    expect(log.map((entry) => entry.key)).toEqual(['balance:o1', 'balance:o2', 'usage:o2:10', 'usage:o2:2']);
  });

  it('skips a key whose summed delta is all zeros', async () => {
    const tx = manager();
    const log: { key: string; delta: number[] }[] = [];
    const cancelled = recorder(log, 'cancelled');
    const zero = recorder(log, 'zero');
    const partial = recorder(log, 'partial');

    await hot.deferWithin(tx, async () => {
      await hot.add(tx, 'cancelled', [3, -4], cancelled);
      await hot.add(tx, 'cancelled', [-3, 4], cancelled);
      await hot.add(tx, 'zero', [0, 0], zero);
      await hot.add(tx, 'partial', [3, -4], partial);
      await hot.add(tx, 'partial', [-3, 0], partial);
    });

    expect(cancelled).not.toHaveBeenCalled();
    expect(zero).not.toHaveBeenCalled();
    expect(log).toEqual([{ key: 'partial', delta: [0, -4] }]);
  });

  it("returns the body's value", async () => {
    const tx = manager();
    await expect(hot.deferWithin(tx, async () => ({ answer: 42 }))).resolves.toEqual({ answer: 42 });
  });

  it('runs no deferred write and propagates the error when the body throws', async () => {
    const tx = manager();
    const write = jest.fn(async () => undefined);
    const error = new Error('body failed');

    await expect(
      hot.deferWithin(tx, async () => {
        await hot.add(tx, 'balance:o1', [5], write);
        throw error;
      }),
    ).rejects.toBe(error);
    expect(write).not.toHaveBeenCalled();

    // The failed scope is gone: the manager writes at once again.
    await hot.add(tx, 'balance:o1', [1], write);
    expect(write).toHaveBeenCalledTimes(1);
    expect(write).toHaveBeenCalledWith([1]);
  });

  it('writes at once again after deferWithin finished', async () => {
    const tx = manager();
    const write = jest.fn(async () => undefined);

    await hot.deferWithin(tx, async () => undefined);
    await hot.add(tx, 'balance:o1', [2], write);

    expect(write).toHaveBeenCalledWith([2]);
  });

  it('keeps the writes of two managers deferring at once apart', async () => {
    const tx1 = manager();
    const tx2 = manager();
    const log: { key: string; delta: number[] }[] = [];
    const write1 = recorder(log, 'tx1');
    const write2 = recorder(log, 'tx2');
    let finishBody1!: () => void;
    const body1Blocked = new Promise<void>((resolve) => (finishBody1 = resolve));

    const run1 = hot.deferWithin(tx1, async () => {
      await hot.add(tx1, 'balance:o1', [1, 1], write1);
      await body1Blocked;
      await hot.add(tx1, 'balance:o1', [10, 0], write1);
      return 'one';
    });
    const run2 = hot.deferWithin(tx2, async () => {
      await hot.add(tx2, 'balance:o1', [100, 0], write2);
      await hot.add(tx2, 'balance:o1', [0, 200], write2);
      return 'two';
    });

    await expect(run2).resolves.toBe('two');
    // tx2's scope ended while tx1's is still open: only tx2's sum was written.
    expect(log).toEqual([{ key: 'tx2', delta: [100, 200] }]);

    finishBody1();
    await expect(run1).resolves.toBe('one');
    expect(log).toEqual([
      { key: 'tx2', delta: [100, 200] },
      { key: 'tx1', delta: [11, 1] },
    ]);
    expect(write1).toHaveBeenCalledTimes(1);
    expect(write2).toHaveBeenCalledTimes(1);
  });

  it('appends rows of one key into one write, in the order they were appended', async () => {
    const tx = manager();
    const inserts: string[][] = [];
    const insert = jest.fn(async (rows: string[]) => void inserts.push(rows));

    await hot.deferWithin(tx, async () => {
      await hot.append(tx, 'charges', 'first', insert);
      await hot.append(tx, 'charges', 'second', insert);
      expect(insert).not.toHaveBeenCalled();
    });

    expect(inserts).toEqual([['first', 'second']]);
    await hot.append(tx, 'charges', 'alone', insert);
    expect(inserts).toEqual([['first', 'second'], ['alone']]);
  });

  it('flush runs one pending write now, and the end of the body does not run it again', async () => {
    const tx = manager();
    const log: { key: string; delta: number[] }[] = [];
    const write = recorder(log, 'room');

    await hot.deferWithin(tx, async () => {
      await hot.add(tx, 'room', [2], write);
      await hot.add(tx, 'room', [3], write);
      await hot.flush(tx, 'room');
      expect(log).toEqual([{ key: 'room', delta: [5] }]);
      await hot.add(tx, 'room', [7], write);
      await hot.flush(tx, 'missing');
    });

    expect(log).toEqual([
      { key: 'room', delta: [5] },
      { key: 'room', delta: [7] },
    ]);
  });

  it("writes the rows of a group with one call: summed per row, in row order, zero rows left out, at the group key's turn", async () => {
    const tx = manager();
    const calls: string[] = [];
    const writeRooms = jest.fn(async (rows: { row: string; delta: number[] }[]) => void calls.push(`rooms ${JSON.stringify(rows)}`));
    const writeBalance = jest.fn(async (delta: number[]) => void calls.push(`balance ${JSON.stringify(delta)}`));

    await hot.deferWithin(tx, async () => {
      await hot.add(tx, '2.balance', [-3], writeBalance);
      await hot.addToGroup(tx, '0.rooms', 'room-b', [1, 3], writeRooms);
      await hot.addToGroup(tx, '0.rooms', 'room-a', [2, 6], writeRooms);
      await hot.addToGroup(tx, '0.rooms', 'room-c', [1, 1], writeRooms);
      await hot.addToGroup(tx, '0.rooms', 'room-b', [4, 12], writeRooms);
      await hot.addToGroup(tx, '0.rooms', 'room-c', [-1, -1], writeRooms);
      expect(calls).toEqual([]);
    });

    expect(calls).toEqual([
      `rooms ${JSON.stringify([
        { row: 'room-a', delta: [2, 6] },
        { row: 'room-b', delta: [5, 15] },
      ])}`,
      'balance [-3]',
    ]);
    // outside deferWithin, a row of a group is written at once, alone
    await hot.addToGroup(tx, '0.rooms', 'room-d', [1, 3], writeRooms);
    expect(calls[2]).toBe(`rooms ${JSON.stringify([{ row: 'room-d', delta: [1, 3] }])}`);
  });

  it('flush writes a whole group now, and the end of the body only what was added after', async () => {
    const tx = manager();
    const written: { row: string; delta: number[] }[][] = [];
    const writeRooms = jest.fn(async (rows: { row: string; delta: number[] }[]) => void written.push(rows));

    await hot.deferWithin(tx, async () => {
      await hot.addToGroup(tx, 'rooms', 'a', [1], writeRooms);
      await hot.addToGroup(tx, 'rooms', 'b', [2], writeRooms);
      await hot.flush(tx, 'rooms');
      expect(written).toEqual([
        [
          { row: 'a', delta: [1] },
          { row: 'b', delta: [2] },
        ],
      ]);
      await hot.addToGroup(tx, 'rooms', 'a', [5], writeRooms);
    });

    expect(written[1]).toEqual([{ row: 'a', delta: [5] }]);
    expect(writeRooms).toHaveBeenCalledTimes(2);
  });
});
