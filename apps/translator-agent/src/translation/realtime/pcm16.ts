// 24 kHz mono PCM16 as the realtime translation session takes it: joined, told from silence, base64-encoded.

/** Audio louder than this (RMS of PCM16) is speech. */
const VOICED_RMS = 300;

/** The parts end to end. */
export function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Whether the audio is speech rather than silence (its RMS above `VOICED_RMS`). */
export function voiced(samples: Int16Array): boolean {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length)) > VOICED_RMS;
}

/** The samples as the protocol carries audio: little-endian bytes, base64. */
export function base64(samples: Int16Array): string {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
}
