/**
 * How far simultaneous mode's translation agrees with sentence mode's translation of the same input:
 * the share of its words found in sentence mode's (each of those counted once; order, case and
 * punctuation left aside) and chrF. What the listener hears chunk by chunk, against what one
 * translation of whole sentences would have said.
 */
import { chrF } from './chrf';

/** Words of a translation, any script, compared case- and punctuation-blind. */
function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** The share of `translation`'s words found in `reference` (1 when it has none); a word of the reference matches once. */
export function wordShare(reference: string, translation: string): number {
  const available = new Map<string, number>();
  for (const word of wordsOf(reference)) available.set(word, (available.get(word) ?? 0) + 1);
  const words = wordsOf(translation);
  let found = 0;
  for (const word of words) {
    const left = available.get(word) ?? 0;
    if (left === 0) continue;
    found += 1;
    available.set(word, left - 1);
  }
  return words.length === 0 ? 1 : found / words.length;
}

export interface Agreement {
  /** Share of the translation's words found in sentence mode's translation, 0..1. */
  word_share: number;
  /** chrF of the translation against sentence mode's, 0..100. */
  chrf: number;
}

export function agreementWith(sentenceTranslation: string, translation: string): Agreement {
  return {
    word_share: Math.round(wordShare(sentenceTranslation, translation) * 1000) / 1000,
    chrf: Math.round(chrF(sentenceTranslation, translation) * 10) / 10,
  };
}
