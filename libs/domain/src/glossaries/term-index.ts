import { normalizeGap, termPattern, words, type TermPattern, type Word } from './term-text';

/** A term or phrase to find, with what it stands for (`value`, e.g. an entry's index). */
export interface IndexedTerm {
  text: string;
  caseSensitive: boolean;
  /** Lower wins between overlapping matches of equal length (a glossary's index). */
  priority: number;
  value: number;
}

export interface TermSpan {
  /** UTF-16 offsets into the text: `text.slice(start, end)` is what matched. */
  start: number;
  end: number;
  value: number;
}

interface Candidate {
  pattern: TermPattern;
  caseSensitive: boolean;
  priority: number;
  order: number;
  value: number;
}

/** The terms starting with one word: those of one word, and the longer ones by their second word. */
interface Bucket {
  single: Candidate[];
  bySecondWord: Map<string, Candidate[]>;
}

/**
 * Terms indexed by their first word, then their second (case-folded), so that finding them in a
 * text costs a look-up or two per word of the text plus the few terms starting with those words,
 * whatever the glossary's size (even when thousands of terms start with "the").
 */
export class TermIndex {
  private readonly byFirstWord = new Map<string, Bucket>();

  constructor(terms: Iterable<IndexedTerm>) {
    let order = 0;
    for (const term of terms) {
      const pattern = termPattern(term.text);
      if (!pattern) continue; // no word at all: it can never match whole words
      const candidate = { pattern, caseSensitive: term.caseSensitive, priority: term.priority, order: order++, value: term.value };
      let bucket = this.byFirstWord.get(pattern.folded[0]);
      if (!bucket) {
        bucket = { single: [], bySecondWord: new Map() };
        this.byFirstWord.set(pattern.folded[0], bucket);
      }
      if (pattern.folded.length === 1) {
        bucket.single.push(candidate);
      } else {
        const list = bucket.bySecondWord.get(pattern.folded[1]);
        if (list) list.push(candidate);
        else bucket.bySecondWord.set(pattern.folded[1], [candidate]);
      }
    }
  }

  /**
   * The matches in `text`, whole words only, without overlaps, in text order. Between overlapping
   * candidates the longer (in characters of the text) wins, then the lower priority, then the
   * earlier position, then the term given first.
   */
  find(text: string): TermSpan[] {
    if (this.byFirstWord.size === 0) return [];
    const found = words(text);
    const gaps: string[] = found.map((word, i) => (i === 0 ? '' : normalizeGap(text.slice(found[i - 1].end, word.start))));
    const hits: (TermSpan & { priority: number; order: number })[] = [];
    for (let i = 0; i < found.length; i++) {
      const bucket = this.byFirstWord.get(found[i].folded);
      if (!bucket) continue;
      const longer = i + 1 < found.length ? bucket.bySecondWord.get(found[i + 1].folded) : undefined;
      for (const candidate of longer ? [...bucket.single, ...longer] : bucket.single) {
        const span = matchAt(text, found, gaps, i, candidate);
        if (span) hits.push({ ...span, value: candidate.value, priority: candidate.priority, order: candidate.order });
      }
    }
    if (hits.length === 0) return [];
    hits.sort((a, b) => b.end - b.start - (a.end - a.start) || a.priority - b.priority || a.start - b.start || a.order - b.order);
    const taken = new Uint8Array(text.length);
    const kept: TermSpan[] = [];
    for (const hit of hits) {
      if (taken.subarray(hit.start, hit.end).some((cell) => cell === 1)) continue;
      taken.fill(1, hit.start, hit.end);
      kept.push({ start: hit.start, end: hit.end, value: hit.value });
    }
    return kept.sort((a, b) => a.start - b.start);
  }
}

function matchAt(text: string, found: Word[], gaps: string[], first: number, candidate: Candidate): { start: number; end: number } | null {
  const { pattern, caseSensitive } = candidate;
  const last = first + pattern.folded.length - 1;
  if (last >= found.length) return null;
  for (let k = 0; k < pattern.folded.length; k++) {
    const word = found[first + k];
    if (caseSensitive ? word.exact !== pattern.exact[k] : word.folded !== pattern.folded[k]) return null;
    if (k > 0 && gaps[first + k] !== pattern.gaps[k - 1]) return null;
  }
  let start = found[first].start;
  let end = found[last].end;
  if (pattern.lead) {
    const before = text.slice(first === 0 ? 0 : found[first - 1].end, start);
    const length = rawSuffixLength(before, pattern.lead);
    if (length < 0) return null;
    start -= length;
  }
  if (pattern.trail) {
    const after = text.slice(end, last + 1 < found.length ? found[last + 1].start : text.length);
    const length = rawPrefixLength(after, pattern.trail);
    if (length < 0) return null;
    end += length;
  }
  return { start, end };
}

/** The length of the shortest end of `raw` that reads as `normalized`, or -1. */
function rawSuffixLength(raw: string, normalized: string): number {
  for (let length = 1; length <= raw.length; length++) if (normalizeGap(raw.slice(raw.length - length)) === normalized) return length;
  return -1;
}

/** The length of the shortest start of `raw` that reads as `normalized`, or -1. */
function rawPrefixLength(raw: string, normalized: string): number {
  for (let length = 1; length <= raw.length; length++) if (normalizeGap(raw.slice(0, length)) === normalized) return length;
  return -1;
}
