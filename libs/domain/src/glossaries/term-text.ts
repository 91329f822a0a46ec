/**
 * How glossary matching reads text (extensions.md "Glossaries"), shared by the duplicate rule, the
 * matcher and the sounds_like replacement so that all three compare terms the same way:
 * - A word is a maximal run of letters, digits and combining marks of any script (`\p{L}\p{N}\p{M}`);
 *   everything else (spaces, punctuation, symbols) is a boundary. In scripts written without spaces
 *   (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) every character (with its marks) is a word,
 *   so a term matches on character boundaries there.
 * - Words compare after Unicode NFC normalization: accents are significant (`cafe` ≠ `café`), but a
 *   precomposed and a decomposed accent are the same (`e\u0301` = `é`).
 * - Case-insensitive comparison folds case locale-independently (upper-casing, then lower-casing:
 *   `ß` = `SS`, `ς` = `σ`).
 * - What lies between two words of a term compares with every run of whitespace as one space and
 *   typographic apostrophes and hyphens as their ASCII forms (`O’Neil` = `O'Neil`); punctuation
 *   itself is significant (`Wi-Fi` ≠ `Wi Fi`).
 */

const CONTINUOUS_SCRIPT = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}`;
const WORD = new RegExp(String.raw`[${CONTINUOUS_SCRIPT}]\p{M}*|(?:(?![${CONTINUOUS_SCRIPT}])[\p{L}\p{N}\p{M}])+`, 'gu');

export interface Word {
  /** UTF-16 offsets into the text. */
  start: number;
  end: number;
  /** NFC form, case kept. */
  exact: string;
  /** NFC form, case folded. */
  folded: string;
}

export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase();
}

export function words(text: string): Word[] {
  const found: Word[] = [];
  for (const match of text.matchAll(WORD)) {
    const exact = match[0].normalize('NFC');
    found.push({ start: match.index, end: match.index + match[0].length, exact, folded: foldCase(exact) });
  }
  return found;
}

const SAME_AS: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u02BC': "'",
  '\u2010': '-',
  '\u2011': '-',
};

/** The form in which what lies between words compares (see the module's comment). */
export function normalizeGap(gap: string): string {
  return gap.replace(/\s+/gu, ' ').replace(/[\u2018\u2019\u02BC\u2010\u2011]/gu, (c) => SAME_AS[c] ?? c);
}

/**
 * A term (or a sounds_like phrase) read as matching reads it: its words, the gaps between them,
 * and the punctuation before its first word and after its last (`.NET`, `C++`). Null when it has no
 * word at all: such a term can never match whole words.
 */
export interface TermPattern {
  exact: string[];
  folded: string[];
  gaps: string[];
  lead: string;
  trail: string;
}

export function termPattern(term: string): TermPattern | null {
  const trimmed = term.trim();
  const found = words(trimmed);
  if (found.length === 0) return null;
  const gaps: string[] = [];
  for (let i = 1; i < found.length; i++) gaps.push(normalizeGap(trimmed.slice(found[i - 1].end, found[i].start)));
  return {
    exact: found.map((word) => word.exact),
    folded: found.map((word) => word.folded),
    gaps,
    lead: normalizeGap(trimmed.slice(0, found[0].start)),
    trail: normalizeGap(trimmed.slice(found[found.length - 1].end)),
  };
}

/**
 * The key under which two terms are the same for matching: equal keys (`caseSensitive` false on
 * both: folded keys) mean that matching could not tell them apart.
 */
export function termKey(term: string, caseSensitive: boolean): string {
  const pattern = termPattern(term);
  if (!pattern) return normalizeGap(term.trim());
  const parts = caseSensitive ? pattern.exact : pattern.folded;
  let key = pattern.lead + parts[0];
  for (let i = 1; i < parts.length; i++) key += pattern.gaps[i - 1] + parts[i];
  return key + pattern.trail;
}
