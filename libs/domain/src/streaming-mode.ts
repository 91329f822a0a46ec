import { DomainError } from './errors';

export const STREAMING_MODES = ['mono', 'dual'] as const;
/** `mono`: one device carries both languages; `dual`: each speaker has their own device. */
export type StreamingMode = (typeof STREAMING_MODES)[number];

export class RoomModeMismatch extends DomainError {
  readonly code = 'room_mode_mismatch';

  constructor(
    readonly mode: StreamingMode,
    readonly languageCount: number,
  ) {
    super(
      `This room is in ${mode} mode, so a participant must send ${languagesRequired(mode)} language${
        mode === 'mono' ? 's' : ''
      }, not ${languageCount}.`,
    );
  }
}

export function isStreamingMode(value: unknown): value is StreamingMode {
  return typeof value === 'string' && (STREAMING_MODES as readonly string[]).includes(value);
}

/** Two languages on one token means one device carries both (mono); one language means dual. */
export function modeForLanguageCount(languageCount: number): StreamingMode {
  if (languageCount === 2) return 'mono';
  if (languageCount === 1) return 'dual';
  throw new RangeError(`A join token carries 1 or 2 languages, got ${languageCount}.`);
}

/** 1 for a dual room, 2 for a mono room, null while the room has no mode. */
export function languagesRequired(mode: StreamingMode | null): 1 | 2 | null {
  if (mode === null) return null;
  return mode === 'mono' ? 2 : 1;
}

export interface ModeDecision {
  mode: StreamingMode;
  /** True when this token settles the room's mode (it had none); the caller persists it. */
  changed: boolean;
}

/**
 * The first token fixes the mode of a room without one; every later token must match it.
 * Throws RoomModeMismatch (409) when the count does not fit, RangeError for a count other than 1 or 2.
 */
export function decideModeForToken(current: StreamingMode | null, languageCount: number): ModeDecision {
  const asked = modeForLanguageCount(languageCount);
  if (current === null) return { mode: asked, changed: true };
  if (current !== asked) throw new RoomModeMismatch(current, languageCount);
  return { mode: current, changed: false };
}
