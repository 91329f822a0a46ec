/**
 * Recorded human speech shipped by Debian's pocketsphinx-testdata, and the local pipeline's
 * providers. The packages are required, not optional: CI installs them (.ci/run).
 */
import { readFileSync } from 'node:fs';
import { loadAgentConfig } from '../../src/config';
import { createSpeechProviders } from '../../src/translation/providers';
import { OUTPUT_SAMPLE_RATE } from '../../src/translation/room-translator';
import type { SpeechProviders } from '../../src/translation/speaker-pipeline';
import type { PcmAudio } from '../../src/tools/wav';
import { parseWav } from '../../src/tools/wav';
import { parseTranscriptionFile } from '../../src/tools/wer';

export const TESTDATA = '/usr/share/pocketsphinx/test/data';
export const LIBRIVOX = `${TESTDATA}/librivox`;

export function librivoxClips(): { id: string; reference: string; audio: PcmAudio }[] {
  const references = parseTranscriptionFile(readFileSync(`${LIBRIVOX}/transcription`, 'utf8'));
  return [...references].map(([id, reference]) => ({ id, reference, audio: parseWav(readFileSync(`${LIBRIVOX}/${id}.wav`)) }));
}

/** `goforward.raw`: headerless 16 kHz mono 16-bit speech, "go forward ten meters". */
export function goForward(): PcmAudio {
  const raw = readFileSync(`${TESTDATA}/goforward.raw`);
  const samples = new Int16Array(raw.length / 2);
  for (let i = 0; i < samples.length; i += 1) samples[i] = raw.readInt16LE(i * 2);
  return { sampleRate: 16_000, channels: 1, samples };
}

export function localProviders(onError: (error: unknown) => void = () => undefined): SpeechProviders {
  const loaded = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local' });
  if (!loaded.ok) throw new Error(`${loaded.problem} (the tests need the local pipeline's packages; .ci/run installs them)`);
  return createSpeechProviders(loaded.config.pipeline, OUTPUT_SAMPLE_RATE, (_stage, error) => onError(error));
}

/** Root mean square of 16-bit samples, 0..32768. */
export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}
