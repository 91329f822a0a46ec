import { revisedWords, StableChunker, type ChunkPolicy, type TimedWord } from './stable-chunks';

/** Two agreeing hypotheses, no frontier: the cut's own rules, one at a time. */
const POLICY: ChunkPolicy = { pauseSeconds: 0.15, waitSeconds: 1.5, maxChunkSeconds: 2, agreement: 2, frontierSeconds: 0 };

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

  it('commits nothing the hypotheses keep changing, however long ago it was said', () => {
    const chunker = new StableChunker(POLICY);
    chunker.hypothesis(hyp('x@0.0-0.4 y@0.4-0.8 z@0.8-1.0'), 1.0);
    expect(chunker.hypothesis(hyp('p@0.0-0.4 q@0.4-0.8 r@0.8-2.2'), 2.2)).toEqual([]);
    expect(chunker.hypothesis(hyp('s@0.0-0.4 q@0.4-0.8 r@0.8-2.2'), 4.0)).toEqual([]);
  });

  it('with LA-3, waits for a third hypothesis to agree before committing', () => {
    const chunker = new StableChunker({ ...POLICY, agreement: 3 });
    chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8'), 1.0);
    // Two agree and a pause follows "not": LA-2 would commit here.
    expect(chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8'), 1.3)).toEqual([]);
    expect(texts(chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8'), 1.6))).toEqual(['he was not']);
  });

  it('with LA-3, a change in the middle hypothesis starts the count again', () => {
    const chunker = new StableChunker({ ...POLICY, agreement: 3 });
    chunker.hypothesis(hyp('our@0.1-0.4 watch@0.4-0.7'), 1.0);
    chunker.hypothesis(hyp('our@0.1-0.4 much@0.4-0.7'), 1.3);
    // "our" agreed three times, "watch"/"much" did not.
    expect(texts(chunker.hypothesis(hyp('our@0.1-0.4 much@0.4-0.7'), 1.6))).toEqual(['our']);
    expect(texts(chunker.hypothesis(hyp('our@0.1-0.4 much@0.4-0.7'), 1.9))).toEqual(['much']);
  });

  it("never commits a word at the recognizer's frontier: it waits until decoding has moved past it", () => {
    const chunker = new StableChunker({ ...POLICY, frontierSeconds: 0.5 });
    chunker.hypothesis(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1'), 1.2);
    // All agreed, a pause after "forward" and after "ten": "ten" ended only 0.3 s before the decoded position.
    expect(texts(chunker.hypothesis(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1'), 1.4))).toEqual(['go forward']);
    expect(texts(chunker.hypothesis(hyp('go@0.1-0.3 forward@0.3-0.7 ten@0.9-1.1'), 1.7))).toEqual(['ten']);
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

  it('remembers the words it committed in the utterance, until its final', () => {
    const chunker = new StableChunker(POLICY);
    chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 an@1.0-1.1'), 1.2);
    chunker.hypothesis(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 in@1.0-1.2'), 1.5);
    expect(chunker.committedWords().map((w) => w.text)).toEqual(['he', 'was', 'not']);
    chunker.final(hyp('he@0.1-0.3 was@0.3-0.5 not@0.5-0.8 in@1.0-1.2'));
    expect(chunker.committedWords()).toEqual([]);
  });
});

describe('revisedWords', () => {
  const said = (text: string) => text.split(' ').map((word, i) => ({ text: word, start: i, end: i + 1 }));
  const revised = (committed: string, final: string) => revisedWords(said(committed), said(final)).map((w) => w.text);

  it('is empty when the final recognition kept every committed word, whatever it added after them', () => {
    expect(revised('he was not', 'he was not an ill man')).toEqual([]);
  });

  it('names the committed words the final replaced or dropped', () => {
    expect(revised('addie married a more', 'had he married a more')).toEqual(['addie']);
    expect(revised('our watch their', 'our much there might be')).toEqual(['watch', 'their']);
    expect(revised('go forward ten', 'go ten')).toEqual(['forward']);
  });

  it('compares words without their case', () => {
    expect(revised('He was Not', 'he was not')).toEqual([]);
  });
});
