/** Stored inbound webhook events to apply (those received together). */
export interface StoredEventsJob {
  events: StoredEventRef[];
}

export interface StoredEventRef {
  /** The provider's event id. */
  id: string;
  /** What the event is about when known (LiveKit: the room's name): events of one subject apply in one lane. */
  subject: string | null;
}

/** The other job of the livekit-events queue: an ended room has waited for late events; send its `room.ended`. */
export const ROOM_SETTLE_JOB = 'room.settle';

export interface RoomSettleJob {
  organizationId: string;
  roomId: string;
}

export type StreamingModeName = 'mono' | 'dual';

export const TRANSLATOR_JOBS = {
  dispatch: 'translator.dispatch',
  dismiss: 'translator.dismiss',
  glossary: 'translator.glossary',
} as const;

/** One glossary entry as it applies to a direction A → B. Plain JSON: it travels to the translator over a queue. */
export interface CompiledGlossaryEntry {
  /** The term in A, as written (trimmed). */
  source: string;
  /**
   * What the term comes out as in B: the entry's B term, the A term as written when
   * `doNotTranslate`, or null (no B term: the words are left to normal translation).
   */
  target: string | null;
  doNotTranslate: boolean;
  caseSensitive: boolean;
  /** The entry's sounds_like phrases in A. */
  soundsLike: string[];
  /** The index of its glossary in the room's list: 0 is the first (strongest). */
  priority: number;
}

/** A room's glossaries compiled for one direction A → B. */
export interface CompiledGlossary {
  sourceLanguage: string;
  targetLanguage: string;
  /** In priority order, then in each glossary's entry order. */
  entries: CompiledGlossaryEntry[];
}

/**
 * The glossaries a room's translator applies now: one compiled glossary per direction of the room's
 * language pair (both, whatever the mode). `version` increases with every change of the room's
 * glossaries (entries, its list, a default, a deletion) and with every new dispatch of its translator;
 * a translator never replaces a newer one with an older one, so reordered or duplicated deliveries
 * settle on the latest.
 */
export interface RoomGlossaries {
  version: number;
  directions: CompiledGlossary[];
}

export interface TranslatorDispatchJob {
  roomId: string;
  /** Increases with every change of the room's want for a translator; older jobs are stale. */
  generation: number;
  /** The internal, namespaced LiveKit room name. */
  livekitRoom: string;
  languages: [string, string];
  mode: StreamingModeName;
  /** The room's glossaries for its language pair at the time of the dispatch. */
  glossaries: RoomGlossaries;
}

/** A live room's glossaries changed: its translator applies them from its next utterance. */
export interface TranslatorGlossaryJob {
  roomId: string;
  livekitRoom: string;
  glossaries: RoomGlossaries;
}

export interface TranslatorDismissJob {
  roomId: string;
  generation: number;
  livekitRoom: string;
}

export const TRANSLATOR_AGENT_NAME = 'translator';

/**
 * One final recognized utterance of one speaker, reported once the translator knows its translation
 * (or that there is none). Interim results are never reported. `segmentId` is the caption's segment
 * id: stable, so a re-sent report is stored once. Times are ISO 8601 wall-clock instants (UTC).
 */
export interface TranscriptSegmentReport {
  type: 'segment';
  roomId: string;
  livekitRoom: string;
  /** When the report was sent. */
  at: string;
  segmentId: string;
  participantIdentity: string;
  /** The language it was spoken in (detected in a mono room). */
  language: string;
  text: string;
  /** What the room's other language heard; null when that direction could not be served. */
  translation: { language: string; text: string } | null;
  startedAt: string;
  endedAt: string;
  /**
   * Simultaneous mode, when chunks of the utterance were translated while it was said: the words sent
   * to translation (in order: what the listener heard translated) and those of them the final
   * recognition (`text`) replaced or dropped. Absent when the utterance was translated whole (sentence
   * mode, hosted recognizers) and from agents older than the field.
   */
  committed?: { text: string; revisedWords: string[] };
}

export type TranslatorEventJob =
  | TranscriptSegmentReport
  | { type: 'joined'; roomId: string; livekitRoom: string; at: string }
  | { type: 'left'; roomId: string; livekitRoom: string; at: string }
  | {
      type: 'latency';
      roomId: string;
      livekitRoom: string;
      at: string;
      /** Source → target language, e.g. `en>de`. */
      direction: string;
      p50Ms: number;
      p95Ms: number;
      samples: number;
      audioSeconds: number;
    };
