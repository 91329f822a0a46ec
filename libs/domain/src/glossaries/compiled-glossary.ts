import type { CompiledGlossary, CompiledGlossaryEntry } from '@app/contracts';
import type { GlossaryEntry } from './glossary-entries';

export type { CompiledGlossary, CompiledGlossaryEntry };

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
