/** The pronoun "I", alone or contracted (i'm, i'll, i've, i'd), as a lowercase recognizer writes it. */
const PRONOUN_I = /(^|[^\p{L}\p{N}'])i(?=$|[^\p{L}\p{N}']|'(?:m|ll|ve|d|s)\b)/gu;
/** The first letter of the text and of every sentence after `.`, `!` or `?`. */
const SENTENCE_START = /(^|[.!?]\s+)(\p{Ll})/gu;

/**
 * Casing a rule-based translator needs: PocketSphinx writes everything lowercase, and Apertium
 * leaves a lowercase "i" untranslated ("i think so" → "i Cree que sí"). Text already cased (a
 * hosted recognizer's) comes out unchanged.
 */
export function restoreCasing(text: string): string {
  return text
    .replace(PRONOUN_I, (_m, before: string) => `${before}I`)
    .replace(SENTENCE_START, (_m, before: string, letter: string) => before + letter.toUpperCase());
}
