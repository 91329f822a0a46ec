import type { CompiledGlossary } from './compiled-glossary';
import { TermIndex } from './term-index';

/** Replaces heard phrases in recognized text; built once per change of the glossary. */
export type SoundsLikeReplacer = (text: string) => string;

/**
 * For a recognizer without keyterms: every `sounds_like` phrase heard (whole words, always
 * case-insensitive) is replaced by its entry's A term as written. Overlapping phrases: the longer
 * wins, then the earlier glossary, then the earlier position. Text without a phrase comes back unchanged.
 */
export function createSoundsLikeReplacer(glossary: CompiledGlossary): SoundsLikeReplacer {
  const index = new TermIndex(
    glossary.entries.flatMap((entry, value) =>
      entry.soundsLike.map((phrase) => ({ text: phrase, caseSensitive: false, priority: entry.priority, value })),
    ),
  );
  return (text) => {
    const spans = index.find(text);
    if (spans.length === 0) return text;
    let result = '';
    let at = 0;
    for (const span of spans) {
      result += text.slice(at, span.start) + glossary.entries[span.value].source;
      at = span.end;
    }
    return result + text.slice(at);
  };
}
