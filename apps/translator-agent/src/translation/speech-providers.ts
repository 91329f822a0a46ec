import type { stt, tts } from '@livekit/agents';
import type { Keyterm } from './room-glossaries';
import type { TextTranslator } from './translator';

/** The three stages of a pipeline, hosted or local; the very same `SpeakerPipeline` drives any of them. */
export interface SpeechProviders {
  readonly label: string;
  /** Speech recognition listening for these languages (one in dual mode, both in mono). */
  stt(languages: string[]): stt.STT;
  translator: TextTranslator;
  /**
   * Streaming synthesis in this language (a provider's own, or a sentence-level StreamAdapter). With
   * `simultaneous`, the pieces of simultaneous mode, where the engine can (the local one; hosted voices
   * ignore it): `speed` times faster than its normal rate, and without the pause a voice leaves after a
   * sentence, since the next piece continues the same speech and the speaker's own pauses are heard.
   */
  tts(language: string, simultaneous?: { speed: number }): tts.TTS;
  /** Whether speech in `source` can be translated into `target`. */
  supports(source: string, target: string): boolean;
  /** Why not, when `supports` says no: the missing engine and the env that selects a hosted provider for it. */
  whyNot?(source: string, target: string): string;
  close?(): Promise<void>;
}

/**
 * A recognizer that can run at a lower CPU priority (PocketSphinx, a local process): a captions-only
 * stream's recognition then yields the CPU to the streams served in full.
 */
export interface BackgroundableSTT {
  setBackground(background: boolean): void;
}

export function backgroundable(engine: stt.STT): engine is stt.STT & BackgroundableSTT {
  return typeof (engine as Partial<BackgroundableSTT>).setBackground === 'function';
}

/**
 * A recognizer steered by a room's glossary terms (a hosted provider's keyterms, vocabulary or
 * prompt): given them at start and again whenever the room's glossaries change.
 */
export interface VocabularySTT {
  setVocabulary(keyterms: readonly Keyterm[]): void;
}

export function takesVocabulary(engine: stt.STT): engine is stt.STT & VocabularySTT {
  return typeof (engine as Partial<VocabularySTT>).setVocabulary === 'function';
}
