import type { FieldIssue, Result } from '../errors';
import { isSupportedLanguage } from '../languages';
import { foldCase, termKey } from './term-text';

export const GLOSSARY_ENTRY_TERMS_MAX = 10;
export const GLOSSARY_TERM_MAX_LENGTH = 200;
export const GLOSSARY_SOUNDS_LIKE_MAX = 10;
export const GLOSSARY_SOUNDS_LIKE_MAX_LENGTH = 200;

/** One entry, validated: terms and phrases trimmed, defaults applied. */
export interface GlossaryEntry {
  /** Language code → term, 1–10 of them. */
  terms: Record<string, string>;
  doNotTranslate: boolean;
  caseSensitive: boolean;
  /** Language code (one of `terms`) → phrases recognition may hear instead of the term. */
  soundsLike: Record<string, string[]>;
}

/** An entry of these terms, with the contract's defaults (translated, case-insensitive, no sounds_like) unless `options` sets them. */
export function glossaryEntry(terms: Record<string, string>, options: Partial<Omit<GlossaryEntry, 'terms'>> = {}): GlossaryEntry {
  return { terms, doNotTranslate: false, caseSensitive: false, soundsLike: {}, ...options };
}

/**
 * Checks one entry as sent (JSON: `terms`, `do_not_translate`, `case_sensitive`, `sounds_like`) and
 * lists every problem, `loc` relative to the entry (the API prefixes e.g. `body`, `entries`, index).
 * Lengths count characters (code points) after trimming. Other keys (`id`, `created_at`) are ignored.
 */
export function validateGlossaryEntry(input: unknown): Result<GlossaryEntry, FieldIssue[]> {
  if (!isPlainObject(input)) {
    return { ok: false, error: [{ loc: [], type: 'dict_type', msg: 'Input should be a valid dictionary', input }] };
  }
  const issues: FieldIssue[] = [];
  const terms = termsField(input.terms, issues);
  const doNotTranslate = booleanField('do_not_translate', input.do_not_translate, issues);
  const caseSensitive = booleanField('case_sensitive', input.case_sensitive, issues);
  const soundsLike = soundsLikeField(input.sounds_like, terms, issues);

  // Counted on the terms as sent, so that the rule is reported alongside a bad term.
  if (doNotTranslate && isPlainObject(input.terms) && Object.keys(input.terms).length > 1) {
    const error = 'an entry with do_not_translate has exactly one term';
    issues.push({ loc: ['terms'], type: 'value_error', msg: `Value error, ${error}.`, input: input.terms, ctx: { error } });
  }
  if (issues.length > 0 || !terms || doNotTranslate === undefined || caseSensitive === undefined || !soundsLike) {
    return { ok: false, error: issues };
  }
  return { ok: true, value: { terms, doNotTranslate, caseSensitive, soundsLike } };
}

function termsField(value: unknown, issues: FieldIssue[]): Record<string, string> | undefined {
  if (value === undefined) {
    issues.push({ loc: ['terms'], type: 'missing', msg: 'Field required', input: null });
    return undefined;
  }
  if (!isPlainObject(value)) {
    issues.push({ loc: ['terms'], type: 'dict_type', msg: 'Input should be a valid dictionary', input: value });
    return undefined;
  }
  const codes = Object.keys(value);
  const before = issues.length;
  if (codes.length < 1) {
    issues.push({ loc: ['terms'], type: 'too_short', msg: 'Send at least 1 term.', input: value, ctx: { min_length: 1 } });
  } else if (codes.length > GLOSSARY_ENTRY_TERMS_MAX) {
    issues.push({
      loc: ['terms'],
      type: 'too_long',
      msg: `Send at most ${GLOSSARY_ENTRY_TERMS_MAX} terms.`,
      input: value,
      ctx: { max_length: GLOSSARY_ENTRY_TERMS_MAX },
    });
  }
  const terms: Record<string, string> = {};
  for (const code of codes) {
    languageKey(['terms', code], code, issues);
    const term = textField(['terms', code], value[code], GLOSSARY_TERM_MAX_LENGTH, issues);
    if (term !== undefined) terms[code] = term;
  }
  return issues.length === before ? terms : undefined;
}

function soundsLikeField(
  value: unknown,
  terms: Record<string, string> | undefined,
  issues: FieldIssue[],
): Record<string, string[]> | undefined {
  if (value === undefined) return {};
  if (!isPlainObject(value)) {
    issues.push({ loc: ['sounds_like'], type: 'dict_type', msg: 'Input should be a valid dictionary', input: value });
    return undefined;
  }
  const before = issues.length;
  const soundsLike: Record<string, string[]> = {};
  for (const [code, phrases] of Object.entries(value)) {
    const loc = ['sounds_like', code];
    if (languageKey(loc, code, issues) && terms && !(code in terms)) {
      const error = `sounds_like may only name languages of terms, and ${code} has no term`;
      issues.push({ loc, type: 'value_error', msg: `Value error, ${error}.`, input: phrases, ctx: { error } });
    }
    if (!Array.isArray(phrases)) {
      issues.push({ loc, type: 'list_type', msg: 'Input should be a valid list', input: phrases });
      continue;
    }
    if (phrases.length > GLOSSARY_SOUNDS_LIKE_MAX) {
      issues.push({
        loc,
        type: 'too_long',
        msg: `Send at most ${GLOSSARY_SOUNDS_LIKE_MAX} phrases.`,
        input: phrases,
        ctx: { max_length: GLOSSARY_SOUNDS_LIKE_MAX },
      });
    }
    const kept: string[] = [];
    phrases.forEach((phrase: unknown, index) => {
      const text = textField([...loc, index], phrase, GLOSSARY_SOUNDS_LIKE_MAX_LENGTH, issues);
      if (text !== undefined) kept.push(text);
    });
    soundsLike[code] = kept;
  }
  return issues.length === before ? soundsLike : undefined;
}

function languageKey(loc: (string | number)[], code: string, issues: FieldIssue[]): boolean {
  if (isSupportedLanguage(code)) return true;
  issues.push({
    loc,
    type: 'unsupported_language',
    msg: `${JSON.stringify(code)} is not a supported language code; see GET /v1/supported-languages.`,
    input: code,
  });
  return false;
}

function textField(loc: (string | number)[], value: unknown, max: number, issues: FieldIssue[]): string | undefined {
  if (typeof value !== 'string') {
    issues.push({ loc, type: 'string_type', msg: 'Input should be a valid string', input: value });
    return undefined;
  }
  const trimmed = value.trim();
  const length = [...trimmed].length;
  if (length < 1) {
    issues.push({ loc, type: 'string_too_short', msg: 'String should have at least 1 character', input: value, ctx: { min_length: 1 } });
    return undefined;
  }
  if (length > max) {
    issues.push({
      loc,
      type: 'string_too_long',
      msg: `String should have at most ${max} characters`,
      input: value,
      ctx: { max_length: max },
    });
    return undefined;
  }
  return trimmed;
}

function booleanField(field: string, value: unknown, issues: FieldIssue[]): boolean | undefined {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  issues.push({ loc: [field], type: 'bool_type', msg: 'Input should be a valid boolean', input: value });
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The duplicate rule: one glossary may not hold the same term twice in one language, as matching
 * compares terms (term-text.ts: words NFC-normalized with accents significant, whitespace runs as one
 * space, case folded unless both entries are case_sensitive). One issue per repeated term, at
 * `[index, 'terms', code]` of the later entry, naming the earlier one in `ctx.duplicate_of`.
 */
export function duplicateTermIssues(entries: readonly GlossaryEntry[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  // Per language, folded key → the earlier terms under it (their entry index, case rule and exact key).
  const seen = new Map<string, { index: number; caseSensitive: boolean; exact: string }[]>();
  entries.forEach((entry, index) => {
    for (const [code, term] of Object.entries(entry.terms)) {
      const exact = termKey(term, true);
      const bucketKey = `${code}\u0000${foldCase(exact)}`;
      const bucket = seen.get(bucketKey) ?? [];
      const earlier = bucket.find((other) => !entry.caseSensitive || !other.caseSensitive || other.exact === exact);
      if (earlier) {
        issues.push({
          loc: [index, 'terms', code],
          type: 'duplicate_term',
          msg: `The term ${JSON.stringify(term)} (${code}) is already in entry ${earlier.index}.`,
          input: term,
          ctx: { duplicate_of: earlier.index },
        });
      } else {
        bucket.push({ index, caseSensitive: entry.caseSensitive, exact });
        seen.set(bucketKey, bucket);
      }
    }
  });
  return issues;
}
