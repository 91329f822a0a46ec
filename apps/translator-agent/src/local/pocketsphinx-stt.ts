import { APIConnectionError, stt, voice, type APIConnectOptions } from '@livekit/agents';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { restoreCasing } from '../translation/casing';
import type { LocalEngines } from './local-engines';
import { SincResampler } from './sinc-resampler';

/** Niceness of a background recognizer: under contention it gets ~1/70 of the CPU a normal one gets. */
const BACKGROUND_NICENESS = 19;

/** PocketSphinx's acoustic model is trained on 16 kHz audio; the framework resamples frames to it. */
export const RECOGNIZER_RATE = 16_000;

type RecognizerLine =
  | { type: 'ready' }
  | { type: 'start'; at: number }
  | { type: 'partial'; text: string; at: number; words: RecognizedWord[] }
  | { type: 'end'; text: string; at: number; words: RecognizedWord[] }
  | { type: 'final'; text: string; start: number | null; end: number | null; words: RecognizedWord[] };

interface RecognizedWord {
  word: string;
  start: number;
  end: number;
}

/**
 * English speech recognition with PocketSphinx, as the framework's streaming STT. One long-lived
 * recognizer process per stream (`engines/pocketsphinx-stream.py`): audio goes in as it arrives,
 * PocketSphinx's own voice activity detection cuts utterances, partial hypotheses come out as
 * interim transcripts (every 0.3 s of speech, with word times, `endTime` where decoding stands) and
 * each utterance's end as its last hypothesis and END_OF_SPEECH, then (after the final pass) its final
 * transcript.
 */
export class PocketSphinxSTT extends stt.STT {
  label = 'pocketsphinx';
  private background = false;

  constructor(private readonly engines: Pick<LocalEngines, 'python' | 'recognizerScript' | 'sphinxModel'>) {
    super({ streaming: true, interimResults: true, alignedTranscript: 'word' });
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    throw new Error('PocketSphinxSTT only streams');
  }

  /** Streams opened from now on run at the lowest CPU priority (captions-only speakers beyond capacity). */
  setBackground(background: boolean): void {
    this.background = background;
  }

  stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    return new PocketSphinxStream(this, this.engines, this.background, options?.connOptions);
  }
}

class PocketSphinxStream extends stt.SpeechStream {
  label = 'pocketsphinx';
  /** END_OF_SPEECH was said for the utterance whose final transcript is awaited. */
  private ended = false;

  constructor(
    engine: PocketSphinxSTT,
    private readonly engines: Pick<LocalEngines, 'python' | 'recognizerScript' | 'sphinxModel'>,
    private readonly background: boolean,
    connOptions?: APIConnectOptions,
  ) {
    // Resampled here, deterministically (SincResampler), not by the framework: rtc-node's resampler
    // dithers, and the same recording must give the same words.
    super(engine, undefined, connOptions);
  }

  protected async run(): Promise<void> {
    const { hmm, lm, dict } = this.engines.sphinxModel;
    const child = spawn(this.engines.python, ['-u', this.engines.recognizerScript, '--hmm', hmm, '--lm', lm, '--dict', dict], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    if (this.background && child.pid !== undefined) {
      try {
        os.setPriority(child.pid, BACKGROUND_NICENESS);
      } catch {
        // not permitted here: it runs at normal priority
      }
    }
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.stdin.on('error', () => undefined);
    const exited = new Promise<number | null>((resolve) => {
      child.on('close', (code) => resolve(code));
      child.on('error', () => resolve(-1));
    });
    const onAbort = () => child.kill();
    this.abortSignal.addEventListener('abort', onAbort);
    const reading = (async () => {
      for await (const line of createInterface({ input: child.stdout })) {
        if (line.trim()) this.onLine(JSON.parse(line) as RecognizerLine);
      }
    })();
    let resampler: SincResampler | null = null;
    let rate = 0;
    try {
      for await (const item of this.input) {
        if (typeof item === 'symbol' || item.samplesPerChannel === 0) continue;
        if (child.exitCode !== null) break;
        if (item.sampleRate !== rate) {
          rate = item.sampleRate;
          resampler = rate === RECOGNIZER_RATE ? null : new SincResampler(rate, RECOGNIZER_RATE);
        }
        const samples = item.data.subarray(0, item.samplesPerChannel * item.channels);
        const input = item.channels === 1 ? samples : mono(samples, item.channels);
        const pcm = resampler ? resampler.push(input) : input;
        // Copied at once: the pipe may hold the chunk after the frame's memory is reused.
        const bytes = Buffer.from(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
        if (!child.stdin.write(bytes)) await Promise.race([once(child.stdin, 'drain'), exited]);
      }
      child.stdin.end();
      await reading;
      const code = await exited;
      if (code !== 0 && !this.abortSignal.aborted) {
        throw new APIConnectionError({
          message: `pocketsphinx recognizer exited with ${code}: ${stderr.trim()}`,
          options: { retryable: true },
        });
      }
    } finally {
      this.abortSignal.removeEventListener('abort', onAbort);
      if (child.exitCode === null) child.kill();
    }
  }

  private onLine(line: RecognizerLine): void {
    switch (line.type) {
      case 'start':
        this.queue.put({ type: stt.SpeechEventType.START_OF_SPEECH });
        return;
      case 'partial':
        this.hypothesis(line);
        return;
      case 'end':
        // The hypothesis as decoded when speech ended: the final pass may still correct it.
        if (line.text) this.hypothesis(line);
        this.ended = true;
        this.queue.put({ type: stt.SpeechEventType.END_OF_SPEECH, speechEndTime: line.words[line.words.length - 1]?.end });
        return;
      case 'final': {
        // Without an "end" when the input stopped mid-utterance.
        if (!this.ended) this.queue.put({ type: stt.SpeechEventType.END_OF_SPEECH, speechEndTime: line.end ?? undefined });
        this.ended = false;
        if (!line.text) return;
        const offset = this.startTimeOffset;
        const data = this.speech(line.text, (line.start ?? 0) + offset, (line.end ?? 0) + offset, 1);
        data.words = this.timed(line.words, offset);
        this.queue.put({ type: stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives: [data] });
        return;
      }
      case 'ready':
        return;
    }
  }

  private hypothesis(line: { text: string; at: number; words: RecognizedWord[] }): void {
    const offset = this.startTimeOffset;
    const data = this.speech(line.text, (line.words[0]?.start ?? line.at) + offset, line.at + offset, 0.5);
    data.words = this.timed(line.words, offset);
    this.queue.put({ type: stt.SpeechEventType.INTERIM_TRANSCRIPT, alternatives: [data] });
  }

  private timed(words: RecognizedWord[], offset: number): voice.TimedString[] {
    return words.map((w) => voice.createTimedString({ text: w.word, startTime: w.start + offset, endTime: w.end + offset }));
  }

  private speech(text: string, startTime: number, endTime: number, confidence: number): stt.SpeechData {
    // PocketSphinx writes lowercase: captions and translation get "I" and sentence starts back.
    return { text: restoreCasing(text), language: 'en' as stt.SpeechData['language'], startTime, endTime, confidence };
  }
}

/** Interleaved channels averaged into one. */
function mono(samples: Int16Array, channels: number): Int16Array {
  const out = new Int16Array(samples.length / channels);
  for (let i = 0; i < out.length; i += 1) {
    let sum = 0;
    for (let c = 0; c < channels; c += 1) sum += samples[i * channels + c]!;
    out[i] = Math.round(sum / channels);
  }
  return out;
}
