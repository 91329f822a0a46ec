import type { CompiledGlossary } from './compiled-glossary';
import { termPattern, words } from './term-text';

/** Whether a text is the beginning, not the whole, of a glossary's multi-word term or phrase. */
export type PhraseStarts = (text: string) => boolean;

/**
 * For a recognizer's text cut into pieces as it is heard (simultaneous mode): a piece ending with
 * the first words of a multi-word A term or sounds_like phrase would be translated before the
 * term is whole, so the cut waits for the next word there. Words compare case-folded, as matching
 * does; what lies between them is not compared (a cut is only delayed, never made wrong).
 */
export function createPhraseStarts(glossary: CompiledGlossary): PhraseStarts {
  const starts = new Set<string>();
  for (const entry of glossary.entries) {
    for (const phrase of [entry.source, ...entry.soundsLike]) {
      const folded = termPattern(phrase)?.folded ?? [];
      for (let length = 1; length < folded.length; length++) starts.add(folded.slice(0, length).join(' '));
    }
  }
  return (text) =>
    starts.size > 0 &&
    starts.has(
      words(text)
        .map((word) => word.folded)
        .join(' '),
    );
}
