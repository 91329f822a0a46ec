import { primaryLanguage } from '@app/domain/translation-routing';
import type { stt } from '@livekit/agents';
import { mergeKeyterms } from './recognition-vocabulary';
import type { GlossaryHolder, Keyterm } from './room-glossaries';
import { takesVocabulary } from './speech-providers';

/**
 * The room's glossaries in one speaker's recognition: a recognizer that takes a vocabulary is
 * steered by the terms and sounds_like phrases of the languages it hears (again at every change),
 * and what was heard shows each heard sounds_like phrase as its term, as written.
 */
export class RecognitionGlossary {
  private readonly unsubscribe: () => void;

  constructor(
    engine: stt.STT,
    /** The languages the recognizer hears (one in dual mode, both in mono). */
    private readonly languages: readonly string[],
    private readonly roomLanguages: readonly [string, string],
    private readonly glossaries: GlossaryHolder | undefined,
  ) {
    if (!glossaries || !takesVocabulary(engine)) {
      this.unsubscribe = () => undefined;
      return;
    }
    const steer = () => engine.setVocabulary(this.keyterms());
    if (this.keyterms().length > 0) steer();
    this.unsubscribe = glossaries.onChange(steer);
  }

  private keyterms(): Keyterm[] {
    return mergeKeyterms(this.languages.flatMap((language) => [this.glossaryFrom(language)?.keyterms ?? []]));
  }

  private glossaryFrom(language: string) {
    const [a, b] = this.roomLanguages;
    return this.glossaries?.direction(language, language === a ? b : a) ?? null;
  }

  /**
   * The text with every heard sounds_like phrase replaced by its term. Done for every recognizer, not
   * only those without a vocabulary: one steered by a phrase may well write the phrase.
   */
  written(text: string, language: string | null | undefined): string {
    if (!this.glossaries) return text;
    const known = language ? this.roomLanguages.find((code) => code === primaryLanguage(language)) : undefined;
    let result = text;
    for (const from of known ? [known] : this.languages) {
      const glossary = this.glossaryFrom(from);
      if (glossary) result = glossary.replaceSoundsLike(result);
    }
    return result;
  }

  /** Whether the text begins a multi-word term or sounds_like phrase of a language heard (simultaneous mode's cuts wait there). */
  startsPhrase(text: string): boolean {
    return this.languages.some((language) => this.glossaryFrom(language)?.startsPhrase(text) ?? false);
  }

  close(): void {
    this.unsubscribe();
  }
}
