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

export const TRANSLATOR_JOBS = { dispatch: 'translator.dispatch', dismiss: 'translator.dismiss' } as const;

export interface TranslatorDispatchJob {
  roomId: string;
  /** Increases with every change of the room's want for a translator; older jobs are stale. */
  generation: number;
  /** The internal, namespaced LiveKit room name. */
  livekitRoom: string;
  languages: [string, string];
  mode: StreamingModeName;
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
