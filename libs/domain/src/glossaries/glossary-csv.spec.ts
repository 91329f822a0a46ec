import { formatGlossaryText, parseGlossaryText } from './glossary-csv';
import { glossaryEntry, type GlossaryEntry } from './glossary-entries';

const entry = glossaryEntry;

function entriesOf(text: string, format: 'csv' | 'tsv' = 'csv'): GlossaryEntry[] {
  const result = parseGlossaryText(text, format);
  if (!result.ok) throw new Error(`expected entries, got ${JSON.stringify(result.error)}`);
  return result.value;
}

function issuesOf(text: string, format: 'csv' | 'tsv' = 'csv') {
  const result = parseGlossaryText(text, format);
  if (result.ok) throw new Error('expected issues');
  return result.error.map(({ loc, type }) => ({ loc, type }));
}

describe('parseGlossaryText', () => {
  it('reads a header of language codes and one entry per row, skipping empty cells', () => {
    expect(entriesOf('en,es,de\nforward,adelante,\n Tenmeter ,,Zehnmeter\n')).toEqual([
      entry({ en: 'forward', es: 'adelante' }),
      entry({ en: 'Tenmeter', de: 'Zehnmeter' }),
    ]);
  });

  it('reads the do_not_translate column in any position, true or false in any case, empty meaning false', () => {
    expect(entriesOf('do_not_translate,en,es\r\ntrue,Acme,\r\nfalse,car,coche\r\n,bus,autobús\r\nTRUE,Zed,\r\nFalse,tram,tranvía')).toEqual(
      [
        entry({ en: 'Acme' }, { doNotTranslate: true }),
        entry({ en: 'car', es: 'coche' }),
        entry({ en: 'bus', es: 'autobús' }),
        entry({ en: 'Zed' }, { doNotTranslate: true }),
        entry({ en: 'tram', es: 'tranvía' }),
      ],
    );
  });

  it('reads RFC 4180 quoting: delimiters, doubled quotes and line breaks inside a field', () => {
    expect(entriesOf('en,es\n"Smith, Jones","Smith y ""Jones"""\n"two\nlines",dos\n')).toEqual([
      entry({ en: 'Smith, Jones', es: 'Smith y "Jones"' }),
      entry({ en: 'two\nlines', es: 'dos' }),
    ]);
  });

  it('reads TSV, a byte order mark, and blank lines as nothing', () => {
    expect(entriesOf('\uFEFFen\tfr\n\ncar, red\tvoiture, rouge\n\n', 'tsv')).toEqual([entry({ en: 'car, red', fr: 'voiture, rouge' })]);
  });

  it('reads an empty text or a header alone as an empty glossary', () => {
    expect(entriesOf('')).toEqual([]);
    expect(entriesOf('en,es\r\n')).toEqual([]);
  });

  it('names the 1-based line of a bad row, the header being line 1, counting lines inside quotes', () => {
    expect(issuesOf('en,es\nok,bien\n"a\nb",' + 'x'.repeat(201) + '\n')).toEqual([{ loc: [3], type: 'string_too_long' }]);
    expect(issuesOf('en,es\nok,bien\n,\n')).toEqual([{ loc: [3], type: 'too_short' }]);
    expect(issuesOf('en,do_not_translate\nAcme,yes\n')).toEqual([{ loc: [2], type: 'bool_type' }]);
    expect(issuesOf('en,es,do_not_translate\nAcme,Acme,true\n')).toEqual([{ loc: [2], type: 'value_error' }]);
    expect(issuesOf('en,es\na,b,c\n')).toEqual([{ loc: [2], type: 'value_error' }]);
  });

  it('rejects a header with an unknown code or a repeated column at line 1', () => {
    expect(issuesOf('en,xx\na,b\n')).toEqual([{ loc: [1], type: 'unsupported_language' }]);
    expect(issuesOf('en,en\na,b\n')).toEqual([{ loc: [1], type: 'value_error' }]);
  });

  it('rejects a quote never closed, or text after a closing quote', () => {
    expect(issuesOf('en\nok\n"open\nstill\n')).toEqual([{ loc: [3], type: 'value_error' }]);
    expect(issuesOf('en\n"a"b\n')).toEqual([{ loc: [2], type: 'value_error' }]);
  });

  it('rejects the same term twice in one language, at the later line, naming the earlier one', () => {
    const result = parseGlossaryText('en,es\nCar,coche\nbus,autobús\ncar,auto\n', 'csv');
    expect(result).toEqual({
      ok: false,
      error: [expect.objectContaining({ loc: [4], type: 'duplicate_term', ctx: { column: 'en', duplicate_of_line: 2 } })],
    });
  });

  it('lists every bad row, not only the first', () => {
    expect(issuesOf('en\n' + 'x'.repeat(201) + '\nok\n\n' + 'y'.repeat(201) + '\n')).toEqual([
      { loc: [2], type: 'string_too_long' },
      { loc: [5], type: 'string_too_long' },
    ]);
  });
});

describe('formatGlossaryText', () => {
  const entries = [
    entry({ es: 'coche', en: 'car' }),
    entry({ en: 'Acme' }, { doNotTranslate: true }),
    entry({ en: 'Smith, "J"', de: 'zwei\nZeilen' }),
    entry({ fr: 'tab\there' }),
  ];

  it('writes sorted language columns, do_not_translate when an entry has it, CRLF and quotes as needed', () => {
    expect(formatGlossaryText(entries, 'csv')).toBe(
      'de,en,es,fr,do_not_translate\r\n,car,coche,,false\r\n,Acme,,,true\r\n"zwei\nZeilen","Smith, ""J""",,,false\r\n,,,tab\there,false\r\n',
    );
    expect(formatGlossaryText([entry({ en: 'a' })], 'tsv')).toBe('en\r\na\r\n');
    expect(formatGlossaryText([], 'csv')).toBe('');
  });

  it('round-trips through parse, in both formats', () => {
    for (const format of ['csv', 'tsv'] as const) {
      const text = formatGlossaryText(entries, format);
      expect(parseGlossaryText(text, format)).toEqual({ ok: true, value: entries });
      expect(formatGlossaryText(entriesOf(text, format), format)).toBe(text);
    }
  });

  // OWASP "CSV Injection": a spreadsheet runs a cell that begins with = + - @, a tab or a carriage return.
  const formulaLike = ['=HYPERLINK("http://x","y")', '+1', '-ish', '@SUM(A1)', "'=x", "''+y", "'-"];

  it('writes a term a spreadsheet would run as a formula with a quote before it, quoted', () => {
    expect(formatGlossaryText([entry({ en: '=1+2', es: "'=1+2" }), entry({ en: '-ish', es: '@here' })], 'csv')).toBe(
      `en,es\r\n"'=1+2","''=1+2"\r\n"'-ish","'@here"\r\n`,
    );
    expect(formatGlossaryText([entry({ en: '+a', de: 'Smith, "J"' })], 'tsv')).toBe(`de\ten\r\n"Smith, ""J"""\t"'+a"\r\n`);
  });

  it('leaves a term alone whose quotes are not followed by a formula character, or that has one later', () => {
    expect(formatGlossaryText([entry({ en: "'tis", es: 'a=b' }), entry({ en: "'", es: 'x-y' })], 'csv')).toBe(
      `en,es\r\n'tis,a=b\r\n',x-y\r\n`,
    );
  });

  it('writes no cell a spreadsheet would run', () => {
    for (const format of ['csv', 'tsv'] as const) {
      const text = formatGlossaryText([entry({ en: 'plain' }), ...formulaLike.map((term) => entry({ en: term }))], format);
      const cells = text.split('\r\n').slice(1, -1);
      expect(cells).toHaveLength(formulaLike.length + 1);
      for (const cell of cells) expect(cell.replace(/^"/, '')).not.toMatch(/^[=+\-@\t\r]/);
    }
  });

  it('round-trips formula-like terms, and terms that begin with the quote itself', () => {
    const tricky = [...formulaLike.map((term) => entry({ en: term, es: `${term} es` })), entry({ en: "'tis", es: "''" })];
    for (const format of ['csv', 'tsv'] as const) {
      const text = formatGlossaryText(tricky, format);
      expect(parseGlossaryText(text, format)).toEqual({ ok: true, value: tricky });
      expect(formatGlossaryText(entriesOf(text, format), format)).toBe(text);
    }
  });

  it('reads a cell an export escaped without its quote, and any other cell as written', () => {
    expect(entriesOf(`en,es\n'=x,''=y\n=x2,'tis\n'@z,'\n`)).toEqual([
      entry({ en: '=x', es: "'=y" }),
      entry({ en: '=x2', es: "'tis" }),
      entry({ en: '@z', es: "'" }),
    ]);
  });

  it('parses 10,000 rows quickly', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => entry({ en: `term ${i}`, es: `término ${i}` }));
    const text = formatGlossaryText(many, 'csv');
    const started = performance.now();
    expect(entriesOf(text)).toHaveLength(10_000);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
