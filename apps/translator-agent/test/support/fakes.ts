/**
 * Deterministic local providers for pipeline tests only: recognition replays a script, synthesis
 * turns each sentence into 10 ms of silence per character. The LLM is agents-js's own FakeLLM,
 * recording what it was asked.
 */
import { llm as agentsLlm, stt, tts, voice, type APIConnectOptions, type llm } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';

export class ScriptedSpeechStream extends stt.SpeechStream {
  label = 'scripted-stt';

  say(events: stt.SpeechEvent[]): void {
    for (const event of events) this.queue.put(event);
  }

  /** The provider ends the stream (a session limit, retries spent): no more events come. */
  hangUp(): void {
    this.queue.close();
  }

  protected async run(): Promise<void> {
    for await (const _frame of this.input) {
      // Frames are accepted and ignored: what is "heard" comes from the script.
    }
  }
}

export class ScriptedSTT extends stt.STT {
  label = 'scripted-stt';
  readonly streams: ScriptedSpeechStream[] = [];

  constructor(readonly languages: string[]) {
    super({ streaming: true, interimResults: true });
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    throw new Error('ScriptedSTT only streams');
  }

  stream(): ScriptedSpeechStream {
    const stream = new ScriptedSpeechStream(this);
    this.streams.push(stream);
    return stream;
  }
}

export const SAMPLE_RATE = 24_000;

class SilenceChunkedStream extends tts.ChunkedStream {
  label = 'silence-tts';

  constructor(
    private readonly text: string,
    engine: tts.TTS,
    connOptions?: APIConnectOptions,
  ) {
    super(text, engine, connOptions);
  }

  protected async run(): Promise<void> {
    const samples = (SAMPLE_RATE / 100) * this.text.length;
    this.queue.put({
      requestId: 'fake',
      segmentId: 'fake',
      frame: new AudioFrame(new Int16Array(samples), SAMPLE_RATE, 1, samples),
      final: true,
    });
    this.queue.close();
  }
}

export class SilenceTTS extends tts.TTS {
  label = 'silence-tts';
  readonly sentences: string[] = [];

  constructor() {
    super(SAMPLE_RATE, 1, { streaming: false });
  }

  synthesize(text: string, connOptions?: APIConnectOptions): tts.ChunkedStream {
    this.sentences.push(text);
    return new SilenceChunkedStream(text, this, connOptions);
  }

  stream(): tts.SynthesizeStream {
    throw new Error('SilenceTTS is not streaming: wrap it in tts.StreamAdapter');
  }
}

export function final(text: string, language = ''): stt.SpeechEvent {
  return {
    type: stt.SpeechEventType.FINAL_TRANSCRIPT,
    alternatives: [{ text, language: language as stt.SpeechData['language'], startTime: 0, endTime: 0, confidence: 1 }],
  };
}

export function interim(text: string, language = ''): stt.SpeechEvent {
  return {
    type: stt.SpeechEventType.INTERIM_TRANSCRIPT,
    alternatives: [{ text, language: language as stt.SpeechData['language'], startTime: 0, endTime: 0, confidence: 0.5 }],
  };
}

export const startOfSpeech: stt.SpeechEvent = { type: stt.SpeechEventType.START_OF_SPEECH };
export const endOfSpeech: stt.SpeechEvent = { type: stt.SpeechEventType.END_OF_SPEECH };

export interface RecordedRequest {
  /** Role and text of every item the LLM was given, in order. */
  messages: { role: string; text: string }[];
}

/**
 * agents-js's FakeLLM (scripted answers keyed by the user's text) that also records every request,
 * so tests can assert on the instructions the model was actually given.
 */
export class RecordingLLM extends voice.testing.FakeLLM {
  readonly requests: RecordedRequest[] = [];
  /** The next this many requests fail as agents-js reports a spent request: an `error` event, then a stream with no text. */
  failNext = 0;

  override chat(params: Parameters<voice.testing.FakeLLM['chat']>[0]): llm.LLMStream {
    this.requests.push({
      messages: params.chatCtx.items.flatMap((item) =>
        item.type === 'message' ? [{ role: item.role, text: item.textContent ?? '' }] : [],
      ),
    });
    if (this.failNext > 0) {
      this.failNext -= 1;
      this.emit('error', {
        type: 'llm_error',
        timestamp: Date.now(),
        label: this.label(),
        error: new Error('503 Service Unavailable'),
        recoverable: false,
      });
      return super.chat({ ...params, chatCtx: llmContext('(nothing scripted for this)') });
    }
    return super.chat(params);
  }
}

function llmContext(text: string): llm.ChatContext {
  const ctx = agentsLlm.ChatContext.empty();
  ctx.addMessage({ role: 'user', content: text });
  return ctx;
}
