import { StableChunker, type ChunkPolicy, type TimedWord } from './stable-chunks';

const POLICY: ChunkPolicy = { pauseSeconds: 0.15, waitSeconds: 1.5, maxChunkSeconds: 2, settledSeconds: 1.2 };

/** `"the@0.2-0.3 mr@0.33-0.62"` → timed words. */
function hyp(spec: string): TimedWord[] {
  return spec.split(' ').map((token) => {
    const [text, times] = token.split('@');
    const [start, end] = times!.split('-').map(Number);
    return { text: text!, start: start!, end: end! };
  });
}
const texts = (chunks: TimedWord[][]) => chunks.map((c) => c.map((w) => w.text).join(' '));

describe('StableChunker', () => {
  it('commits nothing that only one hypothesis has said', () => {
    const chunker = new StableChunker(POLICY);
    expect(chunker.hypothesis(hyp('the@0.2-0.3 mr@0.33-0.62'), 0.9)).toEqual([]);
  });

  it('commits the agreed words at a short pause, not the word after it that is still changing', () => {
    const chunker = new StableChunker(POLICY);
    chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 an@1.0-1.1'), 1.2);
    // "he was not" agreed and followed by a 0.2 s pause; "an" became "in".
    expect(texts(chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 in@1.0-1.2 ill@1.2-1.4'), 1.5))).toEqual(['he was not']);
    // Committed words are not committed again, even as the hypothesis goes on growing.
    expect(chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 in@1.0-1.2 ill@1.2-1.4'), 1.5)).toEqual([]);
  });

  it('without a pause, commits the stable words once the uncommitted speech has waited long enough', () => {
    const chunker = new StableChunker(POLICY);
    const words = 'a@0.0-0.3 b@0.3-0.6 c@0.6-0.9 d@0.9-1.2 e@1.2-1.5';
    chunker.hypothesis(hyp(words), 1.3);
    expect(chunker.hypothesis(hyp(`${words} f@1.5-1.7`), 1.4)).toEqual([]); // waited 1.4 s of 1.5
    expect(texts(chunker.hypothesis(hyp(`${words} g@1.5-1.8`), 1.8))).toEqual(['a b c d e']);
  });

  it('cuts what it commits into chunks of at most the bound, at word boundaries', () => {
    const chunker = new StableChunker(POLICY);
    const words = Array.from({ length: 10 }, (_, i) => `w${i}@${(i * 0.5).toFixed(1)}-${(i * 0.5 + 0.5).toFixed(1)}`).join(' ');
    // A 5 s utterance without a word the partial hypotheses agreed on: its final words come at once.
    const chunks = chunker.final(hyp(words));
    expect(texts(chunks)).toEqual(['w0 w1 w2 w3', 'w4 w5 w6 w7', 'w8 w9']);
    for (const chunk of chunks) expect(chunk[chunk.length - 1]!.end - chunk[0]!.start).toBeLessThanOrEqual(2);
  });

  it('takes words that ended long ago as settled even while the hypotheses keep disagreeing', () => {
    const chunker = new StableChunker(POLICY);
    chunker.hypothesis(hyp('x@0.0-0.4 y@0.4-0.8 z@0.8-1.0'), 1.0);
    expect(texts(chunker.hypothesis(hyp('p@0.0-0.4 q@0.4-0.8 r@0.8-2.2'), 2.2))).toEqual(['p q']);
  });

  it("hands the final hypothesis's words that were not committed to the last chunks, then starts afresh", () => {
    const chunker = new StableChunker(POLICY);
    chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 an@1.0-1.1'), 1.2);
    chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 in@1.0-1.2'), 1.5);
    // The final pass moved a boundary by a frame: the committed words stay committed.
    expect(texts(chunker.final(hyp('he@0.1-0.31 was@0.31-0.5 not@0.5-0.79 an@1.0-1.1 ill@1.1-1.4 man@1.4-1.8')))).toEqual(['an ill man']);
    expect(texts(chunker.final(hyp('go@0.1-0.3 on@0.3-0.5')))).toEqual(['go on']);
  });

  it('does not cut after the first words of a glossary phrase: they wait for the next word and go with it', () => {
    const chunker = new StableChunker(POLICY, (text) => text === 'ten');
    chunker.hypothesis(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1'), 1.3);
    // "go forward ten" agreed, then a pause: "ten" may begin "ten meters", so the cut is before it.
    expect(texts(chunker.hypothesis(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1 meter@1.1-1.3'), 1.4))).toEqual(['go forward']);
    expect(texts(chunker.final(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1 meters@1.1-1.5')))).toEqual(['ten meters']);
  });

  it("at the end of speech commits the last hypothesis's words at once, even unconfirmed or a phrase's start; the final adds only what it moved past them", () => {
    const chunker = new StableChunker(POLICY, (text) => text === 'ten');
    chunker.hypothesis(hyp('go@0.1-0.3 for@0.3-0.7'), 0.8);
    expect(texts(chunker.hypothesis(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1'), 1.2))).toEqual([]);
    expect(texts(chunker.ending())).toEqual(['go forward ten']);
    expect(texts(chunker.ending())).toEqual([]);
    expect(texts(chunker.final(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1 meters@1.1-1.5')))).toEqual(['meters']);
    // Afresh after the final: the next utterance's end commits nothing of this one.
    expect(texts(chunker.ending())).toEqual([]);
  });
});
