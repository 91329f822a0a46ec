import { glossaryFromFile } from './glossary-file';

describe('glossaryFromFile', () => {
  it('reads a UTF-8 file as the API imports one, and names the line of bytes that are not UTF-8', () => {
    expect(glossaryFromFile(Buffer.from('en\tes\r\n"\'=x"\tcafé\r\n'), 'terms.tsv')).toEqual({
      ok: true,
      entries: [expect.objectContaining({ terms: { en: '=x', es: 'café' } })],
    });
    const latin1 = Buffer.concat([Buffer.from('en,es\nok,bien\ncoffee,caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    expect(glossaryFromFile(latin1, 'terms.csv')).toEqual({
      ok: false,
      problem: 'not a glossary (CSV): line 3: Line 3: the text is not valid UTF-8; send the file encoded as UTF-8.',
    });
  });
});
