import type { Keyterm } from './room-glossaries';

/** How much vocabulary a recognizer takes at once; an absent bound is not checked. */
export interface VocabularyLimit {
  maxTerms?: number;
  /** By `estimatedTokens`, summed over the terms. */
  maxTokens?: number;
  /** Characters of the terms joined with `separator`. */
  maxChars?: number;
  separator?: string;
}

/**
 * Deepgram Nova-3 keyterm prompting: up to 100 keyterms and 500 tokens per request
 * (developers.deepgram.com/docs/keyterm). An over-limit list stops transcription without an error.
 */
export const DEEPGRAM_KEYTERM_LIMIT: VocabularyLimit = { maxTerms: 100, maxTokens: 500 };

/**
 * OpenAI realtime transcription: a `prompt` over 1,024 characters is refused ("string too long").
 * `keywords` (gpt-transcribe, gpt-live-transcribe) document no bound: they are held to the same one.
 */
export const OPENAI_TRANSCRIPTION_LIMIT: VocabularyLimit = { maxChars: 1024, separator: ', ' };

/** A token count that errs high: about three ASCII characters a token, one token for any other character. */
export function estimatedTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if (char.charCodeAt(0) < 128) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / 3) + other;
}

/** Several directions' keyterms (a recognizer hearing both languages of a mono room) in one list by priority, each once. */
export function mergeKeyterms(lists: readonly (readonly Keyterm[])[]): Keyterm[] {
  const seen = new Set<string>();
  return lists
    .flatMap((list, listIndex) => list.map((term, order) => ({ term, listIndex, order })))
    .sort((a, b) => a.term.priority - b.term.priority || a.order - b.order || a.listIndex - b.listIndex)
    .flatMap(({ term }) => {
      const key = term.text.toLowerCase();
      if (seen.has(key)) return [];
      seen.add(key);
      return [term];
    });
}

/**
 * The terms a recognizer is given, filled in priority order within its limit: a term that would
 * go over it is left out and the next one tried, so one long phrase does not shut out the rest.
 */
export function fillKeyterms(keyterms: readonly Keyterm[], limit: VocabularyLimit): string[] {
  const chosen: string[] = [];
  let tokens = 0;
  let chars = 0;
  const separator = limit.separator ?? '';
  for (const { text } of keyterms) {
    if (limit.maxTerms !== undefined && chosen.length >= limit.maxTerms) break;
    const moreTokens = estimatedTokens(text);
    const moreChars = text.length + (chosen.length > 0 ? separator.length : 0);
    if (limit.maxTokens !== undefined && tokens + moreTokens > limit.maxTokens) continue;
    if (limit.maxChars !== undefined && chars + moreChars > limit.maxChars) continue;
    chosen.push(text);
    tokens += moreTokens;
    chars += moreChars;
  }
  return chosen;
}
