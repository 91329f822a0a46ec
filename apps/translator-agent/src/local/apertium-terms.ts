import { DEFAULT_PLACEHOLDERS, protectTerms, restoreTerms } from '@app/domain/glossaries';
import type { GlossaryTermMatch } from '../translation/room-glossaries';

/** A placeholder that opens a sentence of Apertium's output (after `¿`/`¡` too), then the word after it. */
const OPENING = new RegExp(String.raw`(^|[.!?]\s+)([¿¡]?)(${DEFAULT_PLACEHOLDERS.pattern.source})(\s+)(\p{Lu})(?=\p{Ll})`, 'giu');

/**
 * Glossary terms through Apertium: each matched term goes in as a placeholder, which Apertium passes
 * on as an unknown word, and comes back as its B term. Apertium capitalizes the first word it knows
 * of a sentence, so a term opening one hands its capital to the next word ("zqxbqz diez" →
 * "zqxbqz Diez"): that word is lowered again unless it was capitalized in the source. A translated
 * term that opened the source sentence opens the translation capitalized; a kept one stays as written.
 */
export function protectForApertium(text: string, matches: readonly GlossaryTermMatch[]): { text: string; restore(output: string): string } {
  const protectedText = protectTerms(text, matches);
  const kept = keptInOrder(matches);
  return {
    text: protectedText.text,
    restore: (output) => {
      if (protectedText.targets.length === 0) return output;
      const lowered = output.replace(OPENING, (whole: string, before: string, mark: string, placeholder: string, ...rest: unknown[]) => {
        const [, space, capital] = rest as [string, string, string];
        const index = DEFAULT_PLACEHOLDERS.parse(new RegExp(DEFAULT_PLACEHOLDERS.pattern.source, 'iu').exec(placeholder)!);
        const match = index === null ? undefined : kept[index];
        if (!match || /^\s+\p{Lu}/u.test(text.slice(match.end))) return whole;
        return before + mark + placeholder + space + capital.toLowerCase();
      });
      const restored = restoreTerms(lowered, protectedText.targets).text;
      const first = kept[0];
      const opensSentence = first && /^\P{L}*$/u.test(text.slice(0, first.start)) && /^\p{Lu}/u.test(first.text);
      if (opensSentence && !first.doNotTranslate && restored.replace(/^\P{L}*/u, '').startsWith(first.target)) {
        return restored.replace(/^(\P{L}*)(\p{Ll})/u, (_m, lead: string, letter: string) => lead + letter.toUpperCase());
      }
      return restored;
    },
  };
}

/** The matches as `protectTerms` numbers its placeholders: in text order, an overlapping one left out. */
function keptInOrder(matches: readonly GlossaryTermMatch[]): GlossaryTermMatch[] {
  const kept: GlossaryTermMatch[] = [];
  for (const match of [...matches].sort((a, b) => a.start - b.start)) {
    if (kept.length === 0 || match.start >= kept[kept.length - 1]!.end) kept.push(match);
  }
  return kept;
}
