import { rawArray, rawObject, withRawMember } from './raw-json';

describe('raw JSON', () => {
  it('adds a member last, as JSON.stringify would write it', () => {
    const participants = [{ id: 1, left_at: '2026-01-01T00:00:00.000Z' }];
    expect(withRawMember(JSON.stringify({ id: 'r', total: 3 }), 'participants', JSON.stringify(participants))).toBe(
      JSON.stringify({ id: 'r', total: 3, participants }),
    );
    expect(withRawMember('{}', 'a', '[]')).toBe('{"a":[]}');
    // A key that needs escaping is escaped.
    expect(JSON.parse(withRawMember('{}', 'we"ird', '1'))).toEqual({ 'we"ird': 1 });
  });

  it('refuses text that is not an object', () => {
    expect(() => withRawMember('[1]', 'a', '1')).toThrow(TypeError);
  });

  it('builds an object of JSON texts in the order given', () => {
    const page = { items: [{ a: 1 }], limit: 50, offset: 0, next_offset: null };
    expect(
      rawObject([
        ['items', '[{"a":1}]'],
        ...Object.entries(page)
          .slice(1)
          .map(([k, v]) => [k, JSON.stringify(v)] as const),
      ]),
    ).toBe(JSON.stringify(page));
    expect(rawObject([])).toBe('{}');
  });

  it('joins JSON texts into an array', () => {
    expect(rawArray([])).toBe('[]');
    expect(rawArray(['{"a":1}', '2', '"x"'])).toBe(JSON.stringify([{ a: 1 }, 2, 'x']));
  });
});
