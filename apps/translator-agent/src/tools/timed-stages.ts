import { tts, type APIConnectOptions } from '@livekit/agents';
import { performance } from 'node:perf_hooks';
import type { TextTranslator, TranslationRequest } from '../translation/translator';

/** Milliseconds spent inside each engine, per call, in call order. */
export interface StageTimes {
  translation: { startedAt: number; ms: number }[];
  synthesis: { startedAt: number; firstAudioMs: number }[];
}

/** The translator, timed from the call to its last chunk. */
export function timedTranslator(inner: TextTranslator, times: StageTimes): TextTranslator {
  return {
    label: inner.label,
    async *translate(request: TranslationRequest) {
      const startedAt = performance.now();
      // The consumer only pushes text to synthesis between chunks: its share of this time is negligible.
      for await (const chunk of inner.translate(request)) yield chunk;
      times.translation.push({ startedAt, ms: performance.now() - startedAt });
    },
  };
}

/** A per-request TTS, timed from the request to its first audio frame. */
export class TimedTTS extends tts.TTS {
  label: string;

  constructor(
    private readonly inner: tts.TTS,
    private readonly times: StageTimes,
  ) {
    super(inner.sampleRate, inner.numChannels, { streaming: false });
    this.label = inner.label;
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    const startedAt = performance.now();
    return new RelayStream(
      text,
      this,
      this.inner.synthesize(text, connOptions, abortSignal),
      (ms) => this.times.synthesis.push({ startedAt, firstAudioMs: ms }),
      connOptions,
    );
  }

  stream(): tts.SynthesizeStream {
    throw new Error('TimedTTS wraps per-request engines only');
  }
}

class RelayStream extends tts.ChunkedStream {
  label = 'timed';
  private readonly startedAt = performance.now();

  constructor(
    text: string,
    engine: tts.TTS,
    private readonly inner: tts.ChunkedStream,
    private readonly onFirstAudio: (ms: number) => void,
    connOptions?: APIConnectOptions,
  ) {
    super(text, engine, connOptions);
  }

  protected async run(): Promise<void> {
    let first = true;
    for await (const audio of this.inner) {
      if (first) this.onFirstAudio(performance.now() - this.startedAt);
      first = false;
      this.queue.put(audio);
    }
  }
}
