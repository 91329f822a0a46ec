import { restoreCasing } from './casing';

describe('restoreCasing', () => {
  it.each([
    ['i think so', 'I think so'],
    ["i'm here", "I'm here"],
    ["i'll go and i've seen it, i'd say", "I'll go and I've seen it, I'd say"],
    ['yes i know. and you? i do', 'Yes I know. And you? I do'],
    ['he said i was right', 'He said I was right'],
    // Words that hold an "i" are left alone.
    ['it is in bits', 'It is in bits'],
    ['mister i. smith', 'Mister I. Smith'],
    // Already cased text (a hosted recognizer's) is unchanged.
    ['I think so. The End!', 'I think so. The End!'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(restoreCasing(input)).toBe(expected);
  });
});
