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

export type TranslatorEventJob =
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
