import { decodeGlossaryText } from './glossary-text-bytes';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

const lineOf = (input: Uint8Array) => {
  const result = decodeGlossaryText(input);
  if (result.ok) throw new Error(`expected an issue, got ${JSON.stringify(result.value)}`);
  return result.error.map(({ loc, type }) => ({ loc, type }));
};

describe('decodeGlossaryText', () => {
  it('decodes UTF-8, dropping a byte order mark', () => {
    expect(decodeGlossaryText(bytes('en,de\r\nstreet,Straße\r\n'))).toEqual({ ok: true, value: 'en,de\r\nstreet,Straße\r\n' });
    expect(decodeGlossaryText(bytes([0xef, 0xbb, 0xbf], 'en\n😀\n'))).toEqual({ ok: true, value: 'en\n😀\n' });
    expect(decodeGlossaryText(bytes(''))).toEqual({ ok: true, value: '' });
  });

  it('names the 1-based line of the first bytes that are not UTF-8, whatever the line ends', () => {
    // 0xE9 is é in Latin-1: not UTF-8 on its own.
    expect(lineOf(bytes('en,fr\r\nok,bien\r\ncafe,caf', [0xe9], '\r\nbad,', [0xff], '\r\n'))).toEqual([
      { loc: [3], type: 'string_unicode' },
    ]);
    expect(lineOf(bytes('en\nok\nok\nok\n', [0xc3]))).toEqual([{ loc: [5], type: 'string_unicode' }]);
    expect(lineOf(bytes('en\rok\r', [0x80], 'x\r'))).toEqual([{ loc: [3], type: 'string_unicode' }]);
    expect(lineOf(bytes([0xfe], 'en\n'))).toEqual([{ loc: [1], type: 'string_unicode' }]);
  });

  it('counts a sequence cut by a line break on the line it begins on, and an overlong or surrogate encoding as bad', () => {
    expect(lineOf(bytes('en\nab', [0xe2, 0x82], '\n', [0xac], '\n'))).toEqual([{ loc: [2], type: 'string_unicode' }]);
    expect(lineOf(bytes('en\nok\n', [0xc0, 0xaf], '\n'))).toEqual([{ loc: [3], type: 'string_unicode' }]);
    expect(lineOf(bytes('en\n', [0xed, 0xa0, 0x80], '\n'))).toEqual([{ loc: [2], type: 'string_unicode' }]);
  });
});
