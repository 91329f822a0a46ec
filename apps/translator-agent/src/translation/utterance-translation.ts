import type { tts } from '@livekit/agents';
import { performance } from 'node:perf_hooks';
import type { PipelineObserver } from '../metrics/agent-metrics';
import { matchLeadingCase } from './casing';
import type { SegmentFates } from './segment-fates';
import type { GlossaryHolder } from './room-glossaries';
import type { SpeakerStreamOptions, TranslationOutputs } from './speaker-stream';
import type { SpeechPacer } from './speech-pacing';
import type { SpeechProviders } from './speech-providers';
import { parseTargetTag } from './tagged-output';
import { translationDirections, translationTaskKey } from './translation-task';
import type { Utterance } from './utterance-queue';

/** Earlier segments (with their translations) given to the translator with each new one. */
export const CONTEXT_SEGMENTS = 3;

export interface UtteranceTranslationOptions {
  providers: SpeechProviders;
  outputs: TranslationOutputs;
  roomLanguages: readonly [string, string];
  speaker: SpeakerStreamOptions['speaker'];
  fates: SegmentFates;
  pacer: SpeechPacer;
  /** Whether translations are spoken now (full service), not only captioned. */
  speaking: () => boolean;
  observer?: PipelineObserver;
  onError?: (error: unknown) => void;
  glossaries?: GlossaryHolder;
}

/**
 * One utterance through translation: the translation streams into synthesis on the target's track as
 * it comes (the target named by the model when the direction is not known), then becomes the
 * segment's caption. Each direction keeps the speaker's last few segments as context.
 */
export class UtteranceTranslation {
  private readonly contexts = new Map<string, { text: string; translation: string }[]>();

  constructor(private readonly options: UtteranceTranslationOptions) {}

  async translate(u: Utterance): Promise<void> {
    const { providers, outputs, roomLanguages, observer, pacer, fates } = this.options;
    const key = translationTaskKey(u.task);
    const context = this.contexts.get(key) ?? [];
    const speak = this.options.speaking();
    let target = u.target;
    let source = u.source;
    let synthesis: tts.SynthesizeStream | null = null;
    let synthesisStartedAt = 0;
    let playing: Promise<void> = Promise.resolve();
    let pending = '';
    let translated = '';

    const delivery = pacer.deliveryFor(u);
    const startSpeaking = (to: string): tts.SynthesizeStream | null => {
      source ??= roomLanguages.find((code) => code !== to) ?? null;
      if (!speak) return null;
      const stream = (delivery ? providers.tts(to, delivery) : providers.tts(to)).stream();
      playing = outputs.play(
        to,
        pacer.frames(stream, source ?? '?', to, u, () => synthesisStartedAt),
      );
      return stream;
    };
    const push = (text: string) => {
      if (!text) return;
      translated += text;
      if (!synthesis) return;
      synthesisStartedAt ||= performance.now();
      synthesis.pushText(text);
    };

    if (target) synthesis = startSpeaking(target);
    const translationStartedAt = performance.now();
    try {
      const glossary = this.options.glossaries?.termsIn(u.text, translationDirections(u.task)) ?? [];
      for await (const delta of providers.translator.translate({ task: u.task, text: u.text, context, glossary })) {
        if (target) {
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
      observer?.stage('translation', performance.now() - translationStartedAt);
    } finally {
      if (synthesis) {
        synthesis.flush();
        synthesis.endInput();
      }
    }
    const text = matchLeadingCase(u.text, translated.trim());
    if (!target) return;
    if (text) {
      // The segment's translation so far: the caption grows chunk by chunk (one piece in sentence mode).
      const joined = fates.translatedPiece(u.segmentId, target, source, text);
      if (u.last) fates.finish(u.segmentId);
      this.contexts.set(key, [...context, { text: u.text, translation: text }].slice(-CONTEXT_SEGMENTS));
      const { identity, trackSid } = this.options.speaker;
      await outputs.translation({ speakerIdentity: identity, trackSid, segmentId: u.segmentId, source, target, text: joined });
    } else {
      this.options.onError?.(new Error(`no translation for segment ${u.segmentId}: nothing said`));
    }
    if (!synthesis) {
      // Beyond the worker's capacity: the translation is a caption, not speech.
      if (text) observer?.utterance('dropped', 'captions_only');
      return;
    }
    await pacer.handOff(playing, synthesis);
  }
}
