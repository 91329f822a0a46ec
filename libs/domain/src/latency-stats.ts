/** Nearest-rank percentile of a sample (p in 0..100); null for an empty sample. */
export function percentile(samples: readonly number[], p: number): number | null {
  if (p < 0 || p > 100 || Number.isNaN(p)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

export interface LatencySummary {
  p50Ms: number;
  p95Ms: number;
  samples: number;
}

export function summarizeLatencies(samplesMs: readonly number[]): LatencySummary | null {
  const p50 = percentile(samplesMs, 50);
  const p95 = percentile(samplesMs, 95);
  if (p50 === null || p95 === null) return null;
  return { p50Ms: Math.round(p50), p95Ms: Math.round(p95), samples: samplesMs.length };
}

export interface LatencyReportRow {
  p50Ms: number;
  p95Ms: number;
  samples: number;
  audioSeconds: number;
}

/**
 * Combines interval reports of one direction. Percentiles of separate intervals cannot be merged
 * exactly without the samples, so p50 is the sample-weighted mean of the interval medians and p95
 * the worst interval p95 (an upper bound, never an optimistic figure).
 */
export function combineLatencyReports(rows: readonly LatencyReportRow[]): LatencyReportRow {
  const samples = rows.reduce((sum, r) => sum + r.samples, 0);
  const audioSeconds = rows.reduce((sum, r) => sum + r.audioSeconds, 0);
  const p50Ms = samples === 0 ? 0 : Math.round(rows.reduce((sum, r) => sum + r.p50Ms * r.samples, 0) / samples);
  const p95Ms = rows.filter((r) => r.samples > 0).reduce((max, r) => Math.max(max, r.p95Ms), 0);
  return { p50Ms, p95Ms, samples, audioSeconds: Math.round(audioSeconds * 1000) / 1000 };
}
