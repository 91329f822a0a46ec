import { summarizeLatencies, type LatencySummary } from '@app/domain/latency-stats';

export interface DirectionReport extends LatencySummary {
  direction: string;
  audioSeconds: number;
}

/**
 * Per direction (`en>de`): end of speech → first translated audio, and seconds of translated audio.
 * `drain` hands out what was measured since the last drain, so each report covers one interval.
 */
export class LatencyTracker {
  private readonly samples = new Map<string, number[]>();
  private readonly audio = new Map<string, number>();

  record(direction: string, latencyMs: number): void {
    const list = this.samples.get(direction) ?? [];
    list.push(Math.max(0, latencyMs));
    this.samples.set(direction, list);
  }

  addAudio(direction: string, seconds: number): void {
    this.audio.set(direction, (this.audio.get(direction) ?? 0) + seconds);
  }

  drain(): DirectionReport[] {
    const directions = new Set([...this.samples.keys(), ...this.audio.keys()]);
    const reports: DirectionReport[] = [];
    for (const direction of [...directions].sort()) {
      const summary = summarizeLatencies(this.samples.get(direction) ?? []) ?? { p50Ms: 0, p95Ms: 0, samples: 0 };
      const audioSeconds = Math.round((this.audio.get(direction) ?? 0) * 1000) / 1000;
      if (summary.samples > 0 || audioSeconds > 0) reports.push({ direction, ...summary, audioSeconds });
    }
    this.samples.clear();
    this.audio.clear();
    return reports;
  }
}
