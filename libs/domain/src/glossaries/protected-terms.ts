import type { GlossaryMatch } from './glossary-matcher';

/**
 * How a protected term is written into the text a machine-translation engine receives, and found
 * again in what it returns. `pattern` is global; `parse` gives the index one of its matches stands
 * for (null: not one of ours).
 */
export interface PlaceholderFormat {
  render(index: number): string;
  pattern: RegExp;
  parse(match: RegExpExecArray): number | null;
}

const DIGIT_LETTERS = 'bcdfghjklm';

/**
 * Placeholders made of letters only, `<prefix><index><suffix>` with the index's decimal digits
 * written as the letters b c d f g h j k l m (0–9): `zqxbqz` is the first term, `zqxcbqz` the
 * eleventh. A rule-based engine (Apertium) takes such a token for an unknown word and passes it
 * through; it is found again whatever the engine did to its case, with an unknown-word mark
 * (`*`, `#`, `@`) before it, and glued to or spaced from its neighbours.
 */
export function letterPlaceholders(prefix = 'zqx', suffix = 'qz'): PlaceholderFormat {
  if (!/^\p{L}+$/u.test(prefix) || !/^\p{L}+$/u.test(suffix) || DIGIT_LETTERS.includes(suffix[0].toLowerCase())) {
    throw new Error(`Placeholder prefix and suffix must be letters, the suffix not starting with one of ${DIGIT_LETTERS}.`);
  }
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    render: (index) =>
      prefix +
      String(index)
        .split('')
        .map((digit) => DIGIT_LETTERS[Number(digit)])
        .join('') +
      suffix,
    pattern: new RegExp(`[*#@]?${escape(prefix)}([${DIGIT_LETTERS}]+)${escape(suffix)}`, 'giu'),
    parse: (match) => {
      const digits = match[1]
        .toLowerCase()
        .split('')
        .map((letter) => DIGIT_LETTERS.indexOf(letter))
        .join('');
      return digits.length > 1 && digits.startsWith('0') ? null : Number(digits);
    },
  };
}

export const DEFAULT_PLACEHOLDERS: PlaceholderFormat = letterPlaceholders();

export interface ProtectedText {
  /** The source text with every match replaced by its placeholder. */
  text: string;
  /** The target term each placeholder stands for, by placeholder index. */
  targets: string[];
}

/** Replaces each match (non-overlapping, as the matcher returns them) by a placeholder, in text order. */
export function protectTerms(
  text: string,
  matches: readonly GlossaryMatch[],
  format: PlaceholderFormat = DEFAULT_PLACEHOLDERS,
): ProtectedText {
  const ordered = [...matches].sort((a, b) => a.start - b.start);
  const targets: string[] = [];
  let result = '';
  let at = 0;
  for (const match of ordered) {
    if (match.start < at) continue; // overlapping: not from the matcher; the earlier one stands
    result += text.slice(at, match.start) + format.render(targets.length);
    targets.push(match.target);
    at = match.end;
  }
  return { text: result + text.slice(at), targets };
}

export interface RestoredText {
  text: string;
  /** Indices of placeholders the engine's output no longer holds (their terms are lost). */
  missing: number[];
}

/**
 * Puts the target terms back, as written, in place of the placeholders found in the engine's
 * output (every occurrence, should the engine have repeated one). Something that looks like a
 * placeholder but names no protected term is left as it is.
 */
export function restoreTerms(
  translated: string,
  targets: readonly string[],
  format: PlaceholderFormat = DEFAULT_PLACEHOLDERS,
): RestoredText {
  const seen = new Set<number>();
  const flags = format.pattern.flags.includes('g') ? format.pattern.flags : `${format.pattern.flags}g`;
  let text = '';
  let at = 0;
  for (const match of translated.matchAll(new RegExp(format.pattern.source, flags))) {
    const index = format.parse(match as RegExpExecArray);
    if (index === null || index >= targets.length) continue;
    seen.add(index);
    text += translated.slice(at, match.index) + targets[index];
    at = match.index + match[0].length;
  }
  text += translated.slice(at);
  return { text, missing: targets.map((_, index) => index).filter((index) => !seen.has(index)) };
}
