import { acceptsJob, workerLoad } from './worker-capacity';

describe('worker capacity', () => {
  it('reports the worker full (load 1) once its job limit is reached, whatever the CPU', () => {
    expect(workerLoad(0, 4, 0.1)).toBeCloseTo(0.1);
    expect(workerLoad(2, 4, 0.1)).toBe(0.5);
    expect(workerLoad(4, 4, 0.1)).toBe(1);
    expect(workerLoad(1, 4, 3)).toBe(1); // a saturated CPU is full too
  });

  it('declines a request past the limit that arrives before the next load report', () => {
    expect(acceptsJob(3, 4)).toBe(true);
    expect(acceptsJob(4, 4)).toBe(false);
  });
});
