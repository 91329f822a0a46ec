/**
 * Simultaneous mode's commit policy: which words of a growing recognition hypothesis are committed to
 * translation before the utterance ends. A word is stable once `agreement` successive hypotheses agree
 * on it and on every word before it (local agreement, LA-n) and it ended `frontierSeconds` before the
 * decoded position (the recognizer still revises the words at its frontier); stable words are committed
 * at a short pause, or once the uncommitted speech has waited `waitSeconds`, always at a word boundary
 * and in chunks of at most `maxChunkSeconds`. `revisedWords` says which committed words the final
 * recognition did not keep.
 */

/** A recognized word, times in seconds of the input's audio. */
export interface TimedWord {
  text: string;
  start: number;
  end: number;
}

export interface ChunkPolicy {
  /** A gap between words at least this long is a pause: a chunk ends there. */
  pauseSeconds: number;
  /** Stable words are committed once the first uncommitted one started this long before the decoded position. */
  waitSeconds: number;
  /** The bound on a chunk: first word's start → last word's end. */
  maxChunkSeconds: number;
  /** Local agreement (LA-n): a word is stable once this many successive hypotheses agree on it and on every word before it. */
  agreement: number;
  /** A word that ended less than this before the decoded position may still change: it waits (until speech ends). */
  frontierSeconds: number;
}

/**
 * Tuned on Debian's LibriVox clips and their joined turn (docs/decisions.md "Simultaneous mode"): LA-3
 * and a 0.5 s frontier committed no word the final recognition changed there nor on recordings not
 * tuned on, for ≈ 0.2 s more word lag than two agreeing hypotheses and a 1.5 s wait.
 */
export const DEFAULT_CHUNK_POLICY: ChunkPolicy = {
  pauseSeconds: 0.15,
  waitSeconds: 1.7,
  maxChunkSeconds: 2,
  agreement: 3,
  frontierSeconds: 0.5,
};

const midpoint = (w: TimedWord) => (w.start + w.end) / 2;

/** The longest run of trailing words a cut may wait behind (the first words of a glossary phrase). */
const MAX_HELD_WORDS = 5;

export class StableChunker {
  /** End of the last committed word (seconds); words whose middle lies before it were committed. */
  private committedEnd = Number.NEGATIVE_INFINITY;
  /** The latest hypothesis and the ones before it, oldest first: as many as `agreement` asks to agree. */
  private recent: (readonly TimedWord[])[] = [];
  /** The words committed in this utterance so far, in order. */
  private committed: TimedWord[] = [];

  constructor(
    private readonly policy: ChunkPolicy = DEFAULT_CHUNK_POLICY,
    /** Whether these words begin (not complete) a glossary term or phrase: a cut after them waits for the next word. */
    private readonly startsPhrase: (text: string) => boolean = () => false,
  ) {}

  /** The hypothesis so far, decoded up to `at` seconds: the chunks it commits (often none). */
  hypothesis(words: readonly TimedWord[], at: number): TimedWord[][] {
    const pending = this.uncommitted(words);
    this.recent = [...this.recent, words].slice(-Math.max(1, this.policy.agreement));
    const agreeing = this.recent.length < this.policy.agreement ? [] : this.recent.map((h) => this.uncommitted(h));
    let stable = 0;
    while (
      stable < pending.length &&
      pending[stable]!.end <= at - this.policy.frontierSeconds &&
      agreeing.length > 0 &&
      agreeing.every((h) => h[stable]?.text === pending[stable]!.text)
    )
      stable += 1;
    if (stable === 0) return [];
    let cut = -1;
    for (let i = 0; i < stable; i += 1) {
      const next = pending[i + 1]?.start ?? at;
      if (next - pending[i]!.end >= this.policy.pauseSeconds) cut = i;
    }
    if (cut < 0 && at - pending[0]!.start >= this.policy.waitSeconds) cut = stable - 1;
    if (cut >= 0) cut = this.beforePhraseStart(pending, cut);
    return cut < 0 ? [] : this.commit(pending.slice(0, cut + 1));
  }

  /** The cut moved before the longest run of trailing words that begins a glossary phrase (-1: nothing to commit yet). */
  private beforePhraseStart(pending: readonly TimedWord[], cut: number): number {
    for (let first = Math.max(0, cut + 1 - MAX_HELD_WORDS); first <= cut; first += 1) {
      const tail = pending
        .slice(first, cut + 1)
        .map((w) => w.text)
        .join(' ');
      if (this.startsPhrase(tail)) return first - 1;
    }
    return cut;
  }

  /**
   * Speech ended (the recognizer's end of utterance, before its final pass): the last hypothesis's words
   * not yet committed, in chunks — no more words follow, so none waits for stability or a phrase's end.
   */
  ending(): TimedWord[][] {
    const rest = this.uncommitted(this.recent[this.recent.length - 1] ?? []);
    return rest.length > 0 ? this.commit(rest) : [];
  }

  /** The words committed in this utterance so far (before its final), in order. */
  committedWords(): readonly TimedWord[] {
    return this.committed;
  }

  /** The utterance's final words: those not yet committed, in chunks. Starts afresh for the next utterance. */
  final(words: readonly TimedWord[]): TimedWord[][] {
    const rest = this.uncommitted(words);
    const chunks = rest.length > 0 ? this.commit(rest) : [];
    this.committedEnd = Number.NEGATIVE_INFINITY;
    this.recent = [];
    this.committed = [];
    return chunks;
  }

  private uncommitted(words: readonly TimedWord[]): TimedWord[] {
    return words.filter((w) => midpoint(w) > this.committedEnd);
  }

  /** Split at word boundaries so that no chunk spans more than the bound. */
  private commit(words: TimedWord[]): TimedWord[][] {
    const chunks: TimedWord[][] = [];
    for (const word of words) {
      const current = chunks[chunks.length - 1];
      if (current && word.end - current[0]!.start <= this.policy.maxChunkSeconds) current.push(word);
      else chunks.push([word]);
    }
    this.committedEnd = words[words.length - 1]!.end;
    this.committed.push(...words);
    return chunks;
  }
}

/**
 * The committed words the final recognition did not keep (replaced or dropped): those outside the
 * longest common subsequence of the two, compared by text. The listener heard them; the transcript
 * says otherwise.
 */
export function revisedWords(committed: readonly TimedWord[], final: readonly TimedWord[]): TimedWord[] {
  const a = committed.map((w) => w.text.toLowerCase());
  const b = final.map((w) => w.text.toLowerCase());
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1)
    for (let j = b.length - 1; j >= 0; j -= 1)
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const revised: TimedWord[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length) {
    if (j < b.length && a[i] === b[j]) {
      i += 1;
      j += 1;
    } else if (j < b.length && lengths[i]![j + 1]! >= lengths[i + 1]![j]!) j += 1;
    else revised.push(committed[i++]!);
  }
  return revised;
}

/** The chunk policy a timing setting runs with: none for sentence mode. */
export function chunkPolicyFor(timing: 'simultaneous' | 'sentence'): ChunkPolicy | null {
  return timing === 'simultaneous' ? DEFAULT_CHUNK_POLICY : null;
}
