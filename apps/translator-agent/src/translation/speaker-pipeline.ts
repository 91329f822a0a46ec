import { directionLabel, recognitionLanguages, routeUtterance, type TranslationMode } from '@app/domain/translation-routing';
import { type llm, stt, tts } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { LatencyTracker } from './latency-tracker';
import { parseTargetTag } from './tagged-output';
import { TranslationAgent, translationTaskFor, translationTaskKey } from './translation-agent';

export interface TranscriptSegment {
  speakerIdentity: string;
  segmentId: string;
  language: string | null;
  text: string;
  final: boolean;
}

export interface TranslationSegment {
  speakerIdentity: string;
  segmentId: string;
  source: string | null;
  target: string;
  text: string;
}

/** Where a pipeline's results go: captions as text streams, speech onto the target's audio track. */
export interface TranslationOutputs {
  transcript(segment: TranscriptSegment): Promise<void>;
  translation(segment: TranslationSegment): Promise<void>;
  captureAudio(target: string, frame: AudioFrame): Promise<void>;
}

export interface SpeechProviders {
  /** Speech recognition listening for these languages (one in dual mode, both in mono). */
  stt(languages: string[]): stt.STT;
  llm: llm.LLM;
  /** Streaming synthesis (a provider's own, or a sentence-level StreamAdapter). */
  tts: tts.TTS;
}

export interface SpeakerPipelineOptions {
  providers: SpeechProviders;
  mode: TranslationMode;
  roomLanguages: readonly [string, string];
  speaker: { identity: string; languages: readonly string[] };
  outputs: TranslationOutputs;
  latency: LatencyTracker;
  now?: () => number;
  onError?: (error: unknown) => void;
}

interface Utterance {
  segmentId: string;
  /** The text translation step for this utterance: fixed direction, or detection in mono. */
  agent: TranslationAgent;
  text: string;
  source: string | null;
  target: string | null;
  endOfSpeechAt: number;
}

/**
 * One speaker's audio → streaming recognition → per utterance, a streaming LLM translation piped
 * into streaming synthesis on the target language's track. Utterances of a speaker stay in order;
 * nothing waits for a whole turn: each final segment of recognition is translated at once.
 */
export class SpeakerPipeline {
  private readonly speech: stt.SpeechStream;
  private readonly now: () => number;
  private speechEndedAt: number | null = null;
  private sequence = 0;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly agents = new Map<string, TranslationAgent>();

  constructor(private readonly options: SpeakerPipelineOptions) {
    this.now = options.now ?? Date.now;
    const languages = recognitionLanguages(options.mode, options.roomLanguages, options.speaker.languages);
    this.speech = options.providers.stt(languages).stream();
  }

  pushFrame(frame: AudioFrame): void {
    if (!this.closed) this.speech.pushFrame(frame);
  }

  /** Consumes recognition events until the stream ends; resolves once queued translations are spoken. */
  async run(): Promise<void> {
    for await (const event of this.speech) this.onSpeech(event);
    await this.chain;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.speech.endInput();
  }

  private onSpeech(event: stt.SpeechEvent): void {
    switch (event.type) {
      case stt.SpeechEventType.START_OF_SPEECH:
        this.speechEndedAt = null;
        return;
      case stt.SpeechEventType.END_OF_SPEECH:
        this.speechEndedAt = this.now();
        return;
      case stt.SpeechEventType.INTERIM_TRANSCRIPT:
      case stt.SpeechEventType.PREFLIGHT_TRANSCRIPT: {
        const alt = event.alternatives?.[0];
        if (alt?.text.trim())
          this.emit(this.options.outputs.transcript(this.segment(alt, false, `${this.options.speaker.identity}-${this.sequence + 1}`)));
        return;
      }
      case stt.SpeechEventType.FINAL_TRANSCRIPT:
        this.onFinal(event);
        return;
      case stt.SpeechEventType.RECOGNITION_USAGE:
        return;
    }
  }

  private segment(alt: stt.SpeechData, final: boolean, segmentId: string): TranscriptSegment {
    return { speakerIdentity: this.options.speaker.identity, segmentId, language: alt.language || null, text: alt.text.trim(), final };
  }

  private onFinal(event: stt.SpeechEvent): void {
    const alt = event.alternatives?.[0];
    const text = alt?.text.trim();
    if (!alt || !text) return;
    this.sequence += 1;
    const segmentId = `${this.options.speaker.identity}-${this.sequence}`;
    const route = routeUtterance({
      mode: this.options.mode,
      roomLanguages: this.options.roomLanguages,
      speakerLanguages: this.options.speaker.languages,
      detectedLanguage: alt.language || null,
    });
    const endOfSpeechAt = this.speechEndedAt ?? this.now();
    this.speechEndedAt = null;
    const source = route.kind === 'translate' ? route.source : null;
    this.emit(this.options.outputs.transcript({ ...this.segment(alt, true, segmentId), language: source ?? (alt.language || null) }));
    const task = translationTaskFor(route, this.options.roomLanguages);
    if (!task) return;
    const key = translationTaskKey(task);
    const agent = this.agents.get(key) ?? new TranslationAgent(task);
    this.agents.set(key, agent);
    const target = route.kind === 'translate' ? route.target : null;
    const utterance: Utterance = { segmentId, agent, text, source, target, endOfSpeechAt };
    this.chain = this.chain.then(() => this.translate(utterance)).catch((error: unknown) => this.options.onError?.(error));
  }

  private emit(promise: Promise<void>): void {
    promise.catch((error: unknown) => this.options.onError?.(error));
  }

  private async translate(u: Utterance): Promise<void> {
    const { providers, outputs, latency, roomLanguages } = this.options;
    const chatCtx = u.agent.segmentContext(u.text);

    let target = u.target;
    let source = u.source;
    let synthesis: tts.SynthesizeStream | null = null;
    let speaking: Promise<void> = Promise.resolve();
    let pending = '';
    let translated = '';

    const startSpeaking = (to: string) => {
      const from = source ?? roomLanguages.find((code) => code !== to) ?? null;
      source = from;
      const direction = directionLabel(from ?? '?', to);
      const stream = providers.tts.stream();
      speaking = (async () => {
        let first = true;
        for await (const audio of stream) {
          if (audio === tts.SynthesizeStream.END_OF_STREAM) break;
          if (first) {
            latency.record(direction, this.now() - u.endOfSpeechAt);
            first = false;
          }
          latency.addAudio(direction, audio.frame.samplesPerChannel / audio.frame.sampleRate);
          await outputs.captureAudio(to, audio.frame);
        }
      })();
      return stream;
    };
    const push = (text: string) => {
      if (!text) return;
      translated += text;
      synthesis?.pushText(text);
    };

    if (target) synthesis = startSpeaking(target);
    const answer = providers.llm.chat({ chatCtx });
    try {
      for await (const chunk of answer) {
        const delta = chunk.delta?.content;
        if (!delta) continue;
        if (synthesis) {
          push(delta);
          continue;
        }
        pending += delta;
        const parsed = parseTargetTag(pending, roomLanguages);
        if (parsed.kind === 'pending') continue;
        if (parsed.kind === 'untagged') return; // the model did not follow the format: say nothing rather than guess
        target = parsed.target;
        synthesis = startSpeaking(target);
        push(parsed.rest);
      }
    } finally {
      answer.close();
      if (synthesis) {
        synthesis.flush();
        synthesis.endInput();
      }
    }
    if (!synthesis || !target) return;
    await outputs.translation({
      speakerIdentity: this.options.speaker.identity,
      segmentId: u.segmentId,
      source,
      target,
      text: translated.trim(),
    });
    await speaking;
    synthesis.close();
  }
}
