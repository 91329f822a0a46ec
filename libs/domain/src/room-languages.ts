import { DomainError, type FieldIssue, type Result } from './errors';
import { findLanguage, isSupportedLanguage, languagesByName, SUPPORTED_LANGUAGES, type Language } from './languages';

/** A room translates between at most this many languages, across all its participants. */
export const MAX_ROOM_LANGUAGES = 2;

export class LanguageNotHeld extends DomainError {
  readonly code = 'language_not_held';

  constructor(
    readonly held: readonly string[],
    readonly requested: readonly string[],
  ) {
    super(
      held.length === 0
        ? 'A room holds at most two languages.'
        : `This room already holds ${describe(held)}; a participant may only join with ${
            held.length === 1 ? 'that language and at most one other' : 'those languages'
          }.`,
    );
  }
}

function describe(codes: readonly string[]): string {
  const names = codes.map((code) => findLanguage(code)?.name ?? code).sort();
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The distinct languages held by the given participants (connected ones and unexpired reservations;
 * the caller chooses which), sorted by code. A null entry is a participant without languages (the translator).
 */
export function heldLanguages(participantLanguages: Iterable<readonly string[] | null>): string[] {
  const held = new Set<string>();
  for (const languages of participantLanguages) {
    for (const code of languages ?? []) held.add(code);
  }
  return [...held].sort();
}

/**
 * The two-language rule: accepts when the held and requested languages together are at most two,
 * or when the request brings no language the room does not hold, and returns that union (sorted by
 * code); otherwise throws LanguageNotHeld (409). A room can hold more than two: a token whose
 * reservation lapsed still connects, after another token took the free place. Its held languages
 * are then what its invites offer (inviteOffer), and a token of those changes nothing.
 */
export function admitLanguages(held: Iterable<string>, requested: readonly string[]): string[] {
  const heldCodes = [...new Set(held)].sort();
  const union = [...new Set([...heldCodes, ...requested])].sort();
  if (union.length > MAX_ROOM_LANGUAGES && union.length > heldCodes.length) throw new LanguageNotHeld(heldCodes, requested);
  return union;
}

/**
 * What an invite offers right now: every supported language while fewer than two are held,
 * exactly the two held ones once two are held. Sorted by name either way.
 */
export function inviteOffer(held: Iterable<string>): Language[] {
  const heldCodes = new Set(held);
  return heldCodes.size < MAX_ROOM_LANGUAGES ? [...SUPPORTED_LANGUAGES] : languagesByName(heldCodes);
}

/**
 * Checks a participant's requested languages: 1 or 2 distinct supported codes. Lists every problem:
 * the count (loc `languages`), and each unknown or repeated code (loc `languages`, index).
 */
export function validateRequestedLanguages(requested: readonly string[]): Result<string[], FieldIssue[]> {
  const issues: FieldIssue[] = [];
  if (requested.length < 1) {
    issues.push({ loc: ['languages'], type: 'too_short', msg: 'Send at least 1 language.', input: requested, ctx: { min_length: 1 } });
  } else if (requested.length > MAX_ROOM_LANGUAGES) {
    issues.push({ loc: ['languages'], type: 'too_long', msg: 'Send at most 2 languages.', input: requested, ctx: { max_length: 2 } });
  }
  const seen = new Set<string>();
  requested.forEach((code, index) => {
    if (!isSupportedLanguage(code)) {
      issues.push({
        loc: ['languages', index],
        type: 'unsupported_language',
        msg: `${JSON.stringify(code)} is not a supported language code; see GET /v1/supported-languages.`,
        input: code,
      });
    } else if (seen.has(code)) {
      issues.push({ loc: ['languages', index], type: 'duplicate_language', msg: `${code} is listed twice.`, input: code });
    }
    seen.add(code);
  });
  return issues.length === 0 ? { ok: true, value: [...requested] } : { ok: false, error: issues };
}
