import { summarizeWordLag, wordLags } from './word-lag';

describe('word lag', () => {
  // A hand-made timeline (ms): the speaker says six words from t = 10,000; the first chunk (3 words)
  // is heard at 11,900, the second (2 words) at 13,000, the last word alone at 13,600.
  const chunks = [
    { wordStarts: [10_000, 10_300, 10_700], firstFrameAt: 11_900 },
    { wordStarts: [11_100, 11_500], firstFrameAt: 13_000 },
    { wordStarts: [12_400], firstFrameAt: 13_600 },
  ];

  it("gives every word its chunk's first frame minus the word's start", () => {
    expect(wordLags(chunks)).toEqual([1900, 1600, 1200, 1900, 1500, 1200]);
  });

  it('summarizes the words (not the chunks) by nearest rank', () => {
    // Sorted: 1200 1200 1500 1600 1900 1900 → p50 is the 3rd, p95 the 6th.
    expect(summarizeWordLag(chunks)).toEqual({ p50: 1500, p95: 1900, max: 1900, words: 6 });
  });

  it('counts a whole utterance spoken at once as one chunk: its first word waits for the whole sentence', () => {
    const sentence = [{ wordStarts: [10_000, 10_300, 10_700, 11_100, 11_500, 12_400], firstFrameAt: 13_600 }];
    expect(summarizeWordLag(sentence)).toEqual({ p50: 2500, p95: 3600, max: 3600, words: 6 });
  });

  it('is null when nothing was spoken', () => {
    expect(summarizeWordLag([])).toBeNull();
    expect(summarizeWordLag([{ wordStarts: [], firstFrameAt: 5 }])).toBeNull();
  });
});
