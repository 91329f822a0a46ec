/**
 * Simultaneous mode's cut: which words of a growing recognition hypothesis are committed to
 * translation before the utterance ends. A word is stable once two successive hypotheses agree on it
 * (or it ended long enough ago); stable words are committed at a short pause, or once the uncommitted
 * speech has waited `waitSeconds`, always at a word boundary and in chunks of at most `maxChunkSeconds`.
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
  /** A word that ended this long before the decoded position counts as stable even if the hypotheses still disagree. */
  settledSeconds: number;
}

export const DEFAULT_CHUNK_POLICY: ChunkPolicy = { pauseSeconds: 0.15, waitSeconds: 1.5, maxChunkSeconds: 2, settledSeconds: 1.2 };

const midpoint = (w: TimedWord) => (w.start + w.end) / 2;

/** The longest run of trailing words a cut may wait behind (the first words of a glossary phrase). */
const MAX_HELD_WORDS = 5;

export class StableChunker {
  /** End of the last committed word (seconds); words whose middle lies before it were committed. */
  private committedEnd = Number.NEGATIVE_INFINITY;
  private previous: readonly TimedWord[] = [];

  constructor(
    private readonly policy: ChunkPolicy = DEFAULT_CHUNK_POLICY,
    /** Whether these words begin (not complete) a glossary term or phrase: a cut after them waits for the next word. */
    private readonly startsPhrase: (text: string) => boolean = () => false,
  ) {}

  /** The hypothesis so far, decoded up to `at` seconds: the chunks it commits (often none). */
  hypothesis(words: readonly TimedWord[], at: number): TimedWord[][] {
    const pending = this.uncommitted(words);
    const before = this.uncommitted(this.previous);
    this.previous = words;
    let stable = 0;
    while (
      stable < pending.length &&
      (pending[stable]!.text === before[stable]?.text || pending[stable]!.end <= at - this.policy.settledSeconds)
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
    const rest = this.uncommitted(this.previous);
    return rest.length > 0 ? this.commit(rest) : [];
  }

  /** The utterance's final words: those not yet committed, in chunks. Starts afresh for the next utterance. */
  final(words: readonly TimedWord[]): TimedWord[][] {
    const rest = this.uncommitted(words);
    const chunks = rest.length > 0 ? this.commit(rest) : [];
    this.committedEnd = Number.NEGATIVE_INFINITY;
    this.previous = [];
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
    return chunks;
  }
}

/** The chunk policy a timing setting runs with: none for sentence mode. */
export function chunkPolicyFor(timing: 'simultaneous' | 'sentence'): ChunkPolicy | null {
  return timing === 'simultaneous' ? DEFAULT_CHUNK_POLICY : null;
}
