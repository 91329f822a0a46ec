import type { FieldIssue, Result } from '../errors';
import { isSupportedLanguage } from '../languages';
import { duplicateTermIssues, validateGlossaryEntry, type GlossaryEntry } from './glossary-entries';

/**
 * A glossary as delimited text (extensions.md "Glossaries"): a header row of language codes and
 * optionally the column `do_not_translate` (`true`/`false`, any case), then one entry per row; empty cells are
 * skipped. Fields follow RFC 4180 (a field holding the delimiter, a quote or a line break is quoted,
 * a quote doubled), for TSV too, so that any term survives a round trip. `case_sensitive` and
 * `sounds_like` have no column: an export leaves them out and an import sets their defaults.
 *
 * Formula cells (OWASP "CSV Injection"): a spreadsheet runs a cell that begins with `=`, `+`, `-`,
 * `@`, a tab or a carriage return. An export writes such a term with a `'` before it, quoted; an
 * import takes exactly that `'` off again (see `formulaSafe`/`fromFormulaSafe`).
 */
export type GlossaryTextFormat = 'csv' | 'tsv';

export const DO_NOT_TRANSLATE_COLUMN = 'do_not_translate';

const DELIMITERS: Readonly<Record<GlossaryTextFormat, string>> = { csv: ',', tsv: '\t' };

/** One record of the text: its cells and the 1-based line it starts on. */
interface TextRecord {
  line: number;
  cells: string[];
}

/**
 * Reads a glossary from CSV/TSV text. Every problem is an issue at `[line]` (1-based, the header is
 * line 1), the message naming the column; each row goes through `validateGlossaryEntry`, so a row
 * obeys exactly the rules of a JSON entry, and the whole file through `duplicateTermIssues`.
 * A text without any record (empty) is an empty glossary.
 */
export function parseGlossaryText(text: string, format: GlossaryTextFormat): Result<GlossaryEntry[], FieldIssue[]> {
  const tokenized = tokenize(text.startsWith('\uFEFF') ? text.slice(1) : text, DELIMITERS[format]);
  if (!tokenized.ok) return tokenized;
  const records = tokenized.value.filter((record) => !isBlank(record));
  if (records.length === 0) return { ok: true, value: [] };

  const [header, ...rows] = records;
  const columns = headerColumns(header);
  if (!columns.ok) return columns;

  const issues: FieldIssue[] = [];
  const entries: GlossaryEntry[] = [];
  const lines: number[] = [];
  for (const row of rows) {
    const input = rowInput(row, columns.value, issues);
    if (!input) continue;
    const result = validateGlossaryEntry(input);
    if (!result.ok) {
      for (const issue of result.error) issues.push(atLine(row.line, issue));
      continue;
    }
    entries.push(result.value);
    lines.push(row.line);
  }
  if (issues.length === 0) {
    for (const issue of duplicateTermIssues(entries)) {
      const [index, , code] = issue.loc;
      const line = lines[Number(index)];
      const earlier = lines[Number(issue.ctx?.duplicate_of)];
      issues.push({
        loc: [line],
        type: issue.type,
        msg: `Line ${line}, ${String(code)}: the term ${JSON.stringify(issue.input)} is already on line ${earlier}.`,
        input: issue.input,
        ctx: { column: code, duplicate_of_line: earlier },
      });
    }
  }
  return issues.length > 0 ? { ok: false, error: issues } : { ok: true, value: entries };
}

/**
 * Writes entries as CSV/TSV: the language codes the entries use (sorted) as columns, then
 * `do_not_translate` when any entry has it; one row per entry, lines ended by CRLF (RFC 4180).
 * An empty list writes nothing.
 */
export function formatGlossaryText(entries: readonly GlossaryEntry[], format: GlossaryTextFormat): string {
  if (entries.length === 0) return '';
  const delimiter = DELIMITERS[format];
  const codes = [...new Set(entries.flatMap((entry) => Object.keys(entry.terms)))].sort();
  const withFlag = entries.some((entry) => entry.doNotTranslate);
  const header = withFlag ? [...codes, DO_NOT_TRANSLATE_COLUMN] : codes;
  const lines = [header.map((cell) => quoted(cell, delimiter)).join(delimiter)];
  for (const entry of entries) {
    const cells = codes.map((code) => (Object.hasOwn(entry.terms, code) ? termCell(entry.terms[code], delimiter) : ''));
    if (withFlag) cells.push(String(entry.doNotTranslate));
    lines.push(cells.join(delimiter));
  }
  return lines.join('\r\n') + '\r\n';
}

interface Column {
  kind: 'term' | 'flag';
  name: string;
}

function headerColumns(header: TextRecord): Result<Column[], FieldIssue[]> {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const columns = header.cells.map((cell, index): Column => {
    const name = cell.trim();
    if (seen.has(name)) {
      issues.push(lineIssue(header.line, 'value_error', `Line ${header.line}: the column ${JSON.stringify(name)} appears twice.`, name));
    }
    seen.add(name);
    if (name === DO_NOT_TRANSLATE_COLUMN) return { kind: 'flag', name };
    if (!isSupportedLanguage(name)) {
      issues.push(
        lineIssue(
          header.line,
          'unsupported_language',
          `Line ${header.line}, column ${index + 1}: ${JSON.stringify(name)} is neither a supported language code (see GET /v1/supported-languages) nor ${DO_NOT_TRANSLATE_COLUMN}.`,
          name,
        ),
      );
    }
    return { kind: 'term', name };
  });
  return issues.length > 0 ? { ok: false, error: issues } : { ok: true, value: columns };
}

/** The row as the JSON entry it stands for, or undefined (with issues) when its shape is wrong. */
function rowInput(row: TextRecord, columns: readonly Column[], issues: FieldIssue[]): Record<string, unknown> | undefined {
  if (row.cells.length > columns.length) {
    issues.push(
      lineIssue(
        row.line,
        'value_error',
        `Line ${row.line}: ${row.cells.length} cells, but the header names ${columns.length} columns.`,
        row.cells,
      ),
    );
    return undefined;
  }
  const terms: Record<string, string> = {};
  const input: Record<string, unknown> = { terms };
  let ok = true;
  row.cells.forEach((cell, index) => {
    const column = columns[index];
    if (cell.trim() === '') return;
    if (column.kind === 'term') {
      terms[column.name] = fromFormulaSafe(cell);
      return;
    }
    // Any case: spreadsheets write TRUE and FALSE when they save a file.
    const flag = cell.trim().toLowerCase();
    if (flag === 'true' || flag === 'false') {
      input.do_not_translate = flag === 'true';
    } else {
      ok = false;
      issues.push({
        loc: [row.line],
        type: 'bool_type',
        msg: `Line ${row.line}, ${column.name}: write true or false.`,
        input: cell,
        ctx: { column: column.name },
      });
    }
  });
  return ok ? input : undefined;
}

function atLine(line: number, issue: FieldIssue): FieldIssue {
  const column = issue.loc.length > 1 ? issue.loc[1] : issue.loc[0];
  const where = column === undefined ? `Line ${line}` : `Line ${line}, ${String(column)}`;
  return {
    loc: [line],
    type: issue.type,
    msg: `${where}: ${issue.msg}`,
    input: issue.input,
    ctx: { ...issue.ctx, column: column ?? null },
  };
}

function lineIssue(line: number, type: string, msg: string, input: unknown): FieldIssue {
  return { loc: [line], type, msg, input };
}

function isBlank(record: TextRecord): boolean {
  return record.cells.length === 1 && record.cells[0] === '';
}

/**
 * RFC 4180 records with either line ending. A quote opens a quoted field only at the field's start;
 * elsewhere it is an ordinary character (as most readers do). An unclosed quote is an issue at the
 * line its record starts on.
 */
function tokenize(text: string, delimiter: string): Result<TextRecord[], FieldIssue[]> {
  const records: TextRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let recordLine = 1;
  let i = 0;
  let atFieldStart = true;
  const endRecord = () => {
    cells.push(cell);
    records.push({ line: recordLine, cells });
    cells = [];
    cell = '';
    atFieldStart = true;
  };
  while (i < text.length) {
    const c = text[i];
    if (atFieldStart && c === '"') {
      const start = recordLine;
      i++;
      let closed = false;
      while (i < text.length) {
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          closed = true;
          i++;
          break;
        }
        if (q === '\n') line++;
        cell += q;
        i++;
      }
      if (!closed) {
        return { ok: false, error: [lineIssue(start, 'value_error', `Line ${start}: a quoted field is never closed.`, null)] };
      }
      atFieldStart = false;
      const next = text[i];
      if (i < text.length && next !== delimiter && next !== '\n' && next !== '\r') {
        return {
          ok: false,
          error: [
            lineIssue(line, 'value_error', `Line ${line}: a closing quote must end its field (write "" for a quote inside it).`, null),
          ],
        };
      }
      continue;
    }
    atFieldStart = false;
    if (c === delimiter) {
      cells.push(cell);
      cell = '';
      atFieldStart = true;
      i++;
    } else if (c === '\r' || c === '\n') {
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      endRecord();
      line++;
      recordLine = line;
    } else {
      cell += c;
      i++;
    }
  }
  if (cell !== '' || cells.length > 0 || !atFieldStart) endRecord();
  return { ok: true, value: records };
}

/**
 * A term a spreadsheet could take for a formula: one that begins with a formula character, or with
 * quotes and then one (`'=x`, so that it keeps its own quote through the round trip).
 */
const FORMULA_LIKE = /^'*[=+\-@\t\r]/;
/** A cell as `formulaSafe` writes it: a quote, then a formula-like term. */
const ESCAPED_FORMULA = /^'+[=+\-@\t\r]/;

/**
 * The cell an export writes for a term: `'` before a formula-like term (`=x` → `'=x`, `'=x` →
 * `''=x`), anything else as it is (`'tis`). `fromFormulaSafe` undoes exactly this, so every term
 * round-trips; a cell no export writes (`=x` typed by hand) is read as written.
 */
function formulaSafe(term: string): string {
  return FORMULA_LIKE.test(term) ? `'${term}` : term;
}

/** The term of a cell an import reads: the inverse of `formulaSafe` (`'=x` → `=x`, `''=x` → `'=x`). */
function fromFormulaSafe(cell: string): string {
  return ESCAPED_FORMULA.test(cell) ? cell.slice(1) : cell;
}

/** A term's field: formula-safe, and quoted when escaped (as OWASP advises) or when RFC 4180 needs it. */
function termCell(term: string, delimiter: string): string {
  const cell = formulaSafe(term);
  return cell === term ? quoted(cell, delimiter) : `"${cell.replaceAll('"', '""')}"`;
}

function quoted(cell: string, delimiter: string): string {
  return cell.includes(delimiter) || /["\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}
