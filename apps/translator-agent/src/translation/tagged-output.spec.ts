import { parseTargetTag, type TagParse } from './tagged-output';

describe('parseTargetTag', () => {
  it.each<[string, TagParse]>([
    ['', { kind: 'pending' }],
    ['de', { kind: 'pending' }],
    ['de|', { kind: 'tagged', target: 'de', rest: '' }],
    ['de| Guten Tag', { kind: 'tagged', target: 'de', rest: 'Guten Tag' }],
    [' EN |Hello', { kind: 'tagged', target: 'en', rest: 'Hello' }],
    ['fr|Bonjour', { kind: 'untagged' }],
    ['Hello there, how are you', { kind: 'untagged' }],
  ])('%j → %j', (buffer, expected) => {
    expect(parseTargetTag(buffer, ['de', 'en'])).toEqual(expected);
  });
});
