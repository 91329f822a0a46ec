import { matchLeadingCase, restoreCasing } from './casing';

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

it('a chunk from the middle of a sentence keeps its first word lowercase, and still gets its "I"', () => {
  expect(restoreCasing('rather selfish i think', false)).toBe('rather selfish I think');
  expect(restoreCasing('i think', false)).toBe('I think');
});

it('a translation of a chunk from the middle of a sentence starts lowercase, as its source does', () => {
  expect(matchLeadingCase('and then at leisure', 'Y entonces en ocio')).toBe('y entonces en ocio');
  expect(matchLeadingCase('And then', 'Y entonces')).toBe('Y entonces');
  // An acronym or a name stays as it is.
  expect(matchLeadingCase('usa is', 'EEUU es')).toBe('EEUU es');
});
