import { admitLanguages } from './room-languages';
import { decideModeForToken, type StreamingMode } from './streaming-mode';

/** A live room as a join token meets it: its mode (null until the first token) and the languages it holds. */
export interface RoomBeforeAdmission {
  mode: StreamingMode | null;
  /** Languages of connected people and of other tokens' fresh reservations (heldLanguages). */
  held: Iterable<string>;
}

export interface TokenAdmission {
  /** The room's mode once the token is admitted. */
  mode: StreamingMode;
  /** The room had no mode: this token sets it (the caller persists it). */
  setsMode: boolean;
  /** The languages the room holds once the token is admitted, sorted by code. */
  languages: string[];
  /** The token brings a language the room did not hold. */
  addsLanguage: boolean;
}

/**
 * The admission rule for a join token (a member's, or a guest's through an invite): the mode first
 * (decideModeForToken: RoomModeMismatch, 409; RangeError for a count other than 1 or 2), then the
 * two languages (admitLanguages: LanguageNotHeld, 409).
 */
export function admitToken(room: RoomBeforeAdmission, requested: readonly string[]): TokenAdmission {
  const { mode, changed } = decideModeForToken(room.mode, requested.length);
  const held = new Set(room.held);
  const languages = admitLanguages(held, requested);
  return { mode, setsMode: changed, languages, addsLanguage: languages.length > held.size };
}

/**
 * An admission that sets no mode and adds no language changes nothing another admission decides
 * on, so it needs only the room's shared admission lock. The SQL function admit_token_shared admits
 * exactly these (apps/api/test/medium/token-admission-rule.spec.ts compares the two).
 */
export function changesNothing(admission: TokenAdmission): boolean {
  return !admission.setsMode && !admission.addsLanguage;
}
