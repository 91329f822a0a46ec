/**
 * Recorded human speech shipped by Debian's pocketsphinx-testdata, and the local pipeline's
 * providers. The packages are required, not optional: CI installs them (.ci/run).
 */
import { readFileSync } from 'node:fs';
import { loadAgentConfig } from '../../src/config';
import { createSpeechProviders } from '../../src/translation/providers';
import { OUTPUT_SAMPLE_RATE } from '../../src/translation/room-translator';
import type { SpeechProviders } from '../../src/translation/speech-providers';
import type { PcmAudio } from '../../src/tools/wav';
import { parseWav } from '../../src/tools/wav';
import { parseTranscriptionFile } from '../../src/tools/wer';

export const TESTDATA = '/usr/share/pocketsphinx/test/data';
export const LIBRIVOX = `${TESTDATA}/librivox`;

/**
 * The Librivox clip's "young man" in Spanish, in either order: simultaneous mode commits words as two
 * successive hypotheses agree on them, and how often the recognizer reports one depends on the machine's
 * load, so "young man" is one chunk ("hombre joven") or two ("joven" · "hombre").
 */
export const YOUNG_MAN_IN_SPANISH = /^(?=.*\bhombre\b)(?=.*\bjoven\b)/is;

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

/** Silence between the clips of the joined turn: shorter than PocketSphinx's 0.5 s end of utterance. */
export const JOINED_GAP_SECONDS = 0.2;
/** Loudness (RMS of 10 ms) above which a clip's edge is speech, not the recording's quiet padding. */
const SPEECH_RMS = 500;
/** Kept on each side of a clip's speech. */
const EDGE_SECONDS = 0.05;

/** The clip without the quiet padding before and after its speech (each LibriVox clip has ~0.3 s on both sides). */
function speechOnly(audio: PcmAudio): Int16Array {
  const window = Math.round(audio.sampleRate / 100) * audio.channels;
  const loud: number[] = [];
  for (let at = 0; at + window <= audio.samples.length; at += window) {
    if (rms(audio.samples.subarray(at, at + window)) > SPEECH_RMS) loud.push(at);
  }
  const edge = Math.round(EDGE_SECONDS * audio.sampleRate) * audio.channels;
  const from = Math.max(0, (loud[0] ?? 0) - edge);
  const to = Math.min(audio.samples.length, (loud[loud.length - 1] ?? audio.samples.length) + window + edge);
  return audio.samples.subarray(from, to);
}

/**
 * Debian's five LibriVox clips said as one continuous turn (22.7 s): each clip's speech without its
 * padding, 0.2 s apart, so no pause anywhere is long enough for PocketSphinx to end the utterance.
 */
export function joinedTurn(): PcmAudio {
  const clips = librivoxClips().map((c) => c.audio);
  const { sampleRate, channels } = clips[0]!;
  const gap = new Int16Array(Math.round(JOINED_GAP_SECONDS * sampleRate) * channels);
  const parts = clips.flatMap((clip, i) => (i === 0 ? [speechOnly(clip)] : [gap, speechOnly(clip)]));
  const samples = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    samples.set(part, at);
    at += part.length;
  }
  return { sampleRate, channels, samples };
}
