/** The pronoun "I", alone or contracted (i'm, i'll, i've, i'd), as a lowercase recognizer writes it. */
const PRONOUN_I = /(^|[^\p{L}\p{N}'])i(?=$|[^\p{L}\p{N}']|'(?:m|ll|ve|d|s)\b)/gu;
/** The first letter of the text and of every sentence after `.`, `!` or `?`. */
const SENTENCE_START = /(^|[.!?]\s+)(\p{Ll})/gu;

/**
 * Casing a rule-based translator needs: PocketSphinx writes everything lowercase, and Apertium
 * leaves a lowercase "i" untranslated ("i think so" → "i Cree que sí"). Text already cased (a
 * hosted recognizer's) comes out unchanged. A chunk from the middle of a sentence (simultaneous mode)
 * passes `sentenceStart: false`: its first word stays lowercase.
 */
export function restoreCasing(text: string, sentenceStart = true): string {
  const pronouns = text.replace(PRONOUN_I, (_m, before: string) => `${before}I`);
  return sentenceStart ? pronouns.replace(SENTENCE_START, (_m, before: string, letter: string) => before + letter.toUpperCase()) : pronouns;
}

/**
 * A translation starts lowercase when its source did (a chunk from the middle of a sentence):
 * Apertium capitalizes the first word of whatever it is given.
 */
export function matchLeadingCase(source: string, translation: string): string {
  const first = source.trimStart()[0];
  if (!first || first === first.toUpperCase()) return translation;
  return translation.replace(/^(\s*)(\p{Lu})(?!\p{Lu})/u, (_m, space: string, letter: string) => space + letter.toLowerCase());
}
