import { BatchedLoader } from './batched-loader';

describe('BatchedLoader', () => {
  it('answers the keys asked for together with one load, each caller its own value', async () => {
    const loads: string[][] = [];
    const loader = new BatchedLoader<string, number>(
      async (keys) => {
        loads.push(keys);
        return new Map(keys.filter((key) => key !== 'missing').map((key) => [key, key.length]));
      },
      { maxBatch: 10, parallel: 1 },
    );
    const first = loader.load('a');
    const rest = Promise.all(['bbb', 'cc', 'bbb', 'missing'].map((key) => loader.load(key)));
    expect(await first).toBe(1);
    expect(await rest).toEqual([3, 2, 3, undefined]);
    // the first key goes out at once; the others, asked for while it ran, share one load, each key once
    expect(loads).toEqual([['a'], ['bbb', 'cc', 'missing']]);
  });

  it('fails only the callers whose key fails to load', async () => {
    const loader = new BatchedLoader<string, string>(
      async (keys) => {
        if (keys.includes('bad')) throw new Error('cannot load bad');
        return new Map(keys.map((key) => [key, key.toUpperCase()]));
      },
      { maxBatch: 10, parallel: 1 },
    );
    const results = await Promise.allSettled(['x', 'bad', 'y', 'z'].map((key) => loader.load(key)));
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      'X',
      'cannot load bad',
      'Y',
      'Z',
    ]);
  });
});
