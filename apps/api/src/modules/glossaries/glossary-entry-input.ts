import { duplicateTermIssues, validateGlossaryEntry, type FieldIssue, type GlossaryEntry, type Result } from '@app/domain';
import { termKey } from '@app/domain/glossaries/term-text';
import { hasLoneSurrogate } from '../../common/json/json-shape';
import type { NewGlossaryEntry } from './glossaries.repository';

export const GLOSSARIES_PER_ORGANIZATION = 100;
export const ENTRIES_PER_GLOSSARY = 10_000;
export const ROOM_GLOSSARIES_MAX = 5;

/** Text PostgreSQL can store: no NUL, no unpaired surrogate (as every other string field of the API). */
function storableIssues(entry: GlossaryEntry): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const check = (loc: (string | number)[], text: string) => {
    if (text.includes('\u0000')) {
      issues.push({
        loc,
        type: 'string_pattern_mismatch',
        msg: "String should not contain the NUL character ('\\u0000')",
        input: text,
        ctx: { pattern: '[^\\x00]*' },
      });
    } else if (hasLoneSurrogate(text)) {
      issues.push({
        loc,
        type: 'string_unicode',
        msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
        input: text,
      });
    }
  };
  for (const [code, term] of Object.entries(entry.terms)) check(['terms', code], term);
  for (const [code, phrases] of Object.entries(entry.soundsLike)) phrases.forEach((phrase, i) => check(['sounds_like', code, i], phrase));
  return issues;
}

/** One entry as sent in JSON: the domain's rules, and text the database can store. `loc` relative to the entry. */
export function readGlossaryEntry(input: unknown): Result<GlossaryEntry, FieldIssue[]> {
  const result = validateGlossaryEntry(input);
  if (!result.ok) return result;
  const issues = storableIssues(result.value);
  return issues.length > 0 ? { ok: false, error: issues } : result;
}

/**
 * A list of entries as sent in JSON (a body's `entries`, a PUT's array): at most 10,000, each valid,
 * no term twice in one language. `loc` relative to the list (`[index, …]`).
 */
export function readGlossaryEntries(input: unknown): Result<GlossaryEntry[], FieldIssue[]> {
  if (!Array.isArray(input)) return { ok: false, error: [{ loc: [], type: 'list_type', msg: 'Input should be a valid list', input }] };
  if (input.length > ENTRIES_PER_GLOSSARY) return { ok: false, error: [tooManyEntries(input.length)] };
  const issues: FieldIssue[] = [];
  const entries: GlossaryEntry[] = [];
  input.forEach((item: unknown, index) => {
    const result = readGlossaryEntry(item);
    if (result.ok) entries.push(result.value);
    else issues.push(...result.error.map((issue) => ({ ...issue, loc: [index, ...issue.loc] })));
  });
  if (issues.length > 0) return { ok: false, error: issues };
  const duplicates = duplicateTermIssues(entries);
  return duplicates.length > 0 ? { ok: false, error: duplicates } : { ok: true, value: entries };
}

export function tooManyEntries(count: number): FieldIssue {
  return {
    loc: [],
    type: 'too_long',
    msg: `A glossary holds at most ${ENTRIES_PER_GLOSSARY} entries, not ${count}.`,
    input: null,
    ctx: { max_length: ENTRIES_PER_GLOSSARY, actual_length: count },
  };
}

/** The entry with its terms' folded matching keys (what the duplicate check looks entries up by). */
export function withTermKeys(entry: GlossaryEntry): NewGlossaryEntry {
  const termKeys: Record<string, string> = {};
  for (const [code, term] of Object.entries(entry.terms)) termKeys[code] = termKey(term, false);
  return { entry, termKeys };
}

/** The sorted language codes the entries use. */
export function languagesOf(entries: readonly GlossaryEntry[]): string[] {
  return [...new Set(entries.flatMap((entry) => Object.keys(entry.terms)))].sort();
}
