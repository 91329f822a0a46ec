import { reservedKeyIssues } from './reserved-keys';

const locs = (json: string) => reservedKeyIssues(JSON.parse(json), 'body').map((issue) => issue.loc);

describe('reservedKeyIssues', () => {
  it.each([
    ['{"name": "constructor", "constructors": 1, "proto": 2, "__proto": 3}', []],
    ['{"constructor": 1}', [['body', 'constructor']]],
    ['{"a": {"__proto__": {"x": 1}}}', [['body', 'a', '__proto__']]],
    ['[{"prototype": 1}]', [['body', 0, 'prototype']]],
    // document order, and a reserved key's own value is not looked into
    [
      '{"a": [1, {"b": {"prototype": 1}}], "constructor": {"__proto__": 1}, "z": {"constructor": 2}}',
      [
        ['body', 'a', 1, 'b', 'prototype'],
        ['body', 'constructor'],
        ['body', 'z', 'constructor'],
      ],
    ],
  ])('%s', (json, expected) => {
    expect(locs(json)).toEqual(expected);
  });

  it('names the key and echoes its value', () => {
    expect(reservedKeyIssues({ name: { constructor: 1 } }, 'query')).toEqual([
      {
        loc: ['query', 'name', 'constructor'],
        msg: 'Extra inputs are not permitted: "constructor" is a reserved key',
        type: 'extra_forbidden',
        input: 1,
        ctx: {},
      },
    ]);
  });

  it('lists at most 16, and walks a deeply nested input without recursion', () => {
    expect(locs(`[${'{"constructor": 1},'.repeat(40)}1]`)).toHaveLength(16);
    const deep = `${'['.repeat(100_000)}{"__proto__": 1}${']'.repeat(100_000)}`;
    expect(locs(deep)).toEqual([['body', ...Array<number>(100_000).fill(0), '__proto__']]);
  });
});
