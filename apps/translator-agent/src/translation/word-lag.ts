/**
 * Word lag: for every recognized word, the time from when it started being spoken (the recognizer's
 * word start, on the input's clock) to when the first frame of the translated speech that carries it
 * was handed to the track. Every word of a spoken chunk (a whole utterance in sentence mode) gets the
 * chunk's first frame: the listener hears none of it sooner.
 */
import { percentile } from '@app/domain/latency-stats';

/** One chunk of translated speech: its words' start times and its first frame's time, in epoch milliseconds. */
export interface SpokenChunk {
  wordStarts: readonly number[];
  firstFrameAt: number;
  /** Where its last word ended (epoch ms), when known. */
  speechEndAt?: number;
}

export interface WordLagSummary {
  p50: number;
  p95: number;
  max: number;
  /** How many words the figures cover. */
  words: number;
}

/** Each word's lag in milliseconds, in the chunks' order. */
export function wordLags(chunks: readonly SpokenChunk[]): number[] {
  return chunks.flatMap((chunk) => chunk.wordStarts.map((start) => chunk.firstFrameAt - start));
}

/** p50, p95 and max of the lags, rounded to milliseconds; null when no word was spoken. */
export function summarizeWordLag(chunks: readonly SpokenChunk[]): WordLagSummary | null {
  const lags = wordLags(chunks);
  const p50 = percentile(lags, 50);
  const p95 = percentile(lags, 95);
  if (p50 === null || p95 === null) return null;
  return {
    p50: Math.round(p50),
    p95: Math.round(p95),
    max: Math.round(Math.max(...lags)),
    words: lags.length,
  };
}
