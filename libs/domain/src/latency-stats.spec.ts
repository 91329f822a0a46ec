import { combineLatencyReports, percentile, summarizeLatencies } from './latency-stats';

describe('percentile (nearest rank)', () => {
  it.each<[number[], number, number | null]>([
    [[], 50, null],
    [[7], 50, 7],
    [[7], 95, 7],
    [[1, 2, 3, 4], 50, 2],
    [[4, 3, 2, 1], 50, 2],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95, 10],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90, 9],
    [[5, 1, 3], 0, 1],
    [[5, 1, 3], 100, 5],
  ])('%j p%d = %s', (samples, p, expected) => {
    expect(percentile(samples, p)).toBe(expected);
  });

  it.each([-1, 101, Number.NaN])('rejects p = %d', (p) => {
    expect(() => percentile([1], p)).toThrow(RangeError);
  });
});

describe('summarizeLatencies', () => {
  it('is null without samples', () => {
    expect(summarizeLatencies([])).toBeNull();
  });

  it('rounds to whole milliseconds', () => {
    expect(summarizeLatencies([100.4, 200.6, 300.2])).toEqual({ p50Ms: 201, p95Ms: 300, samples: 3 });
  });
});

describe('combineLatencyReports', () => {
  it.each([
    ['nothing', [], { p50Ms: 0, p95Ms: 0, samples: 0, audioSeconds: 0 }],
    [
      'one report',
      [{ p50Ms: 400, p95Ms: 900, samples: 10, audioSeconds: 12.5 }],
      { p50Ms: 400, p95Ms: 900, samples: 10, audioSeconds: 12.5 },
    ],
    [
      'weights medians by samples and keeps the worst p95',
      [
        { p50Ms: 400, p95Ms: 900, samples: 30, audioSeconds: 10 },
        { p50Ms: 800, p95Ms: 700, samples: 10, audioSeconds: 2.25 },
      ],
      { p50Ms: 500, p95Ms: 900, samples: 40, audioSeconds: 12.25 },
    ],
    [
      'an empty interval does not drag anything',
      [
        { p50Ms: 0, p95Ms: 5000, samples: 0, audioSeconds: 0 },
        { p50Ms: 600, p95Ms: 650, samples: 4, audioSeconds: 3 },
      ],
      { p50Ms: 600, p95Ms: 650, samples: 4, audioSeconds: 3 },
    ],
  ])('%s', (_name, rows, expected) => {
    expect(combineLatencyReports(rows)).toEqual(expected);
  });
});
