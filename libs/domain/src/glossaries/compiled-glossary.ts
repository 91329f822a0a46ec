import type { CompiledGlossary, CompiledGlossaryEntry, RoomGlossaries } from '@app/contracts';
import type { GlossaryEntry } from './glossary-entries';

export type { CompiledGlossary, CompiledGlossaryEntry, RoomGlossaries };

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

/**
 * What a room's translator applies for a language pair: both directions compiled from the room's
 * glossaries in priority order. One function for the API (dispatches and changes) and for
 * `translate:file`, so both apply the same compiled form.
 */
export function compileRoomGlossaries(
  glossaries: readonly (readonly GlossaryEntry[])[],
  languages: readonly [string, string],
  version: number,
): RoomGlossaries {
  const [first, second] = languages;
  return { version, directions: [compileGlossary(glossaries, first, second), compileGlossary(glossaries, second, first)] };
}
