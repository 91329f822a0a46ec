import type { GlossaryEntry } from './glossary-entries';

/** One entry as it applies to a direction A → B. Plain JSON: it travels to the translator over a queue. */
export interface CompiledGlossaryEntry {
  /** The term in A, as written (trimmed). */
  source: string;
  /**
   * What the term comes out as in B: the entry's B term, the A term as written when
   * `doNotTranslate`, or null (no B term: the words are left to normal translation).
   */
  target: string | null;
  doNotTranslate: boolean;
  caseSensitive: boolean;
  /** The entry's sounds_like phrases in A. */
  soundsLike: string[];
  /** The index of its glossary in the room's list: 0 is the first (strongest). */
  priority: number;
}

export interface CompiledGlossary {
  sourceLanguage: string;
  targetLanguage: string;
  /** In priority order, then in each glossary's entry order. */
  entries: CompiledGlossaryEntry[];
}

/**
 * The compiled glossary of a direction A → B from a room's glossaries in priority order (each the
 * list of its entries): every entry with a term in A. An empty list compiles to no entries.
 */
export function compileGlossary(
  glossaries: readonly (readonly GlossaryEntry[])[],
  sourceLanguage: string,
  targetLanguage: string,
): CompiledGlossary {
  const entries: CompiledGlossaryEntry[] = [];
  glossaries.forEach((glossary, priority) => {
    for (const entry of glossary) {
      if (!Object.hasOwn(entry.terms, sourceLanguage)) continue;
      const source = entry.terms[sourceLanguage];
      entries.push({
        source,
        target: entry.doNotTranslate ? source : Object.hasOwn(entry.terms, targetLanguage) ? entry.terms[targetLanguage] : null,
        doNotTranslate: entry.doNotTranslate,
        caseSensitive: entry.caseSensitive,
        soundsLike: Object.hasOwn(entry.soundsLike, sourceLanguage) ? [...entry.soundsLike[sourceLanguage]] : [],
        priority,
      });
    }
  });
  return { sourceLanguage, targetLanguage, entries };
}
