/**
 * Which utterance is translated into which language, for the translator agent.
 * `dual`: each speaker talks in the one language they declared; it goes into the room's other one.
 * `mono`: one device carries both languages, so the detected language of each utterance decides.
 */
export type TranslationMode = 'mono' | 'dual';

export type RouteSkipReason = 'speaker-language-outside-room' | 'language-undetected' | 'language-outside-room' | 'no-speaker-language';

export type UtteranceRoute = { kind: 'translate'; source: string; target: string } | { kind: 'skip'; reason: RouteSkipReason };

export interface UtteranceInput {
  mode: TranslationMode;
  /** The two languages the room holds. */
  roomLanguages: readonly [string, string];
  /** What the speaking participant declared in their join token. */
  speakerLanguages: readonly string[];
  /** What speech recognition detected for this utterance, if it said. */
  detectedLanguage?: string | null;
}

/** `en-US`, `EN`, `en_us` → `en`: the room holds primary subtags, recognizers often answer with regions. */
export function primaryLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

function inRoom(roomLanguages: readonly [string, string], tag: string): string | null {
  const primary = primaryLanguage(tag);
  return roomLanguages.find((code) => primaryLanguage(code) === primary) ?? null;
}

function other(roomLanguages: readonly [string, string], source: string): string {
  return roomLanguages[0] === source ? roomLanguages[1] : roomLanguages[0];
}

export function routeUtterance(input: UtteranceInput): UtteranceRoute {
  const { roomLanguages } = input;
  if (input.mode === 'dual') {
    const declared = input.speakerLanguages[0];
    if (declared === undefined) return { kind: 'skip', reason: 'no-speaker-language' };
    const source = inRoom(roomLanguages, declared);
    if (!source) return { kind: 'skip', reason: 'speaker-language-outside-room' };
    return { kind: 'translate', source, target: other(roomLanguages, source) };
  }
  if (!input.detectedLanguage) return { kind: 'skip', reason: 'language-undetected' };
  const source = inRoom(roomLanguages, input.detectedLanguage);
  if (!source) return { kind: 'skip', reason: 'language-outside-room' };
  return { kind: 'translate', source, target: other(roomLanguages, source) };
}

/** The languages speech recognition listens for on one participant's track. */
export function recognitionLanguages(
  mode: TranslationMode,
  roomLanguages: readonly [string, string],
  speakerLanguages: readonly string[],
): string[] {
  if (mode === 'mono') return [...roomLanguages];
  const declared = speakerLanguages[0];
  const source = declared === undefined ? null : inRoom(roomLanguages, declared);
  return source ? [source] : [];
}

/** The published track a client subscribes to for hearing `language`. */
export function translationTrackName(language: string): string {
  return `translation-${language}`;
}

/** One translated track per language of the room: each is the target of the other language's speech. */
export function translationTrackNames(roomLanguages: readonly [string, string]): string[] {
  return roomLanguages.map(translationTrackName);
}

/** `en>de`: the direction label used in latency reports. */
export function directionLabel(source: string, target: string): string {
  return `${source}>${target}`;
}
