import type { CompiledGlossary } from './compiled-glossary';
import { TermIndex } from './term-index';

export interface GlossaryMatch {
  /** UTF-16 offsets into the text; `text` is the matched slice, as written there. */
  start: number;
  end: number;
  text: string;
  /** Index into the compiled glossary's `entries`. */
  entry: number;
  /** What it comes out as in B (never null: entries without a B term take no part in translation). */
  target: string;
}

export interface GlossaryMatcher {
  /** The entries' A terms in `text`: whole words, without overlaps, in text order. */
  find(text: string): GlossaryMatch[];
}

/**
 * Builds the matcher of a compiled glossary once (per change of the glossary), then finds terms
 * per utterance. The A term matches whole words, case-insensitively unless `caseSensitive`
 * (term-text.ts says how words, accents and whitespace compare). Overlapping matches: the longer
 * wins, then the earlier glossary, then the earlier position. An entry without a B term takes no
 * part: its words are left to normal translation and do not block other entries.
 */
export function createGlossaryMatcher(glossary: CompiledGlossary): GlossaryMatcher {
  const index = new TermIndex(
    glossary.entries.flatMap((entry, value) =>
      entry.target === null ? [] : [{ text: entry.source, caseSensitive: entry.caseSensitive, priority: entry.priority, value }],
    ),
  );
  return {
    find: (text) =>
      index.find(text).map((span) => ({
        start: span.start,
        end: span.end,
        text: text.slice(span.start, span.end),
        entry: span.value,
        target: glossary.entries[span.value].target ?? '',
      })),
  };
}
