import type { LocalParticipant } from '@livekit/rtc-node';
import type { RealtimeFailureReason } from '../metrics/agent-metrics';

/**
 * The translator's status per speaker, as a participant attribute of the translator itself:
 * `translation.status.<speaker identity>` holds JSON `{"state", "reason", "message", "track"}`. Set only
 * when a speaker is not served the normal way (and again once they are): clients read it with
 * LiveKit's participant attributes (`attributesChanged`), next to the captions on `lk.transcription`.
 */
export const STATUS_ATTR_PREFIX = 'translation.status.';

/**
 * `translating`: served by the configured pipeline (again); `reconnecting`: the hosted session is being
 * opened again, speech meanwhile is held back; `fallback`: served by the composed pipeline instead;
 * `unavailable`: not translated at all (no captions either), `message` says why.
 */
export type StreamState = 'translating' | 'reconnecting' | 'fallback' | 'unavailable';

/** Why: a realtime session's failure, or `unsupported_language` (the preferred pipeline does not cover the speaker's direction). */
export type StreamReason = RealtimeFailureReason | 'unsupported_language';

export interface StreamStatus {
  speakerIdentity: string;
  trackSid: string;
  state: StreamState;
  reason: StreamReason | null;
  message: string;
}

/** Sets the translator participant's status attributes; what comes before the room is connected waits for `flush`. */
export class StatusPublisher {
  private readonly latest = new Map<string, string>();

  constructor(private readonly participant: () => Pick<LocalParticipant, 'setAttributes'> | undefined) {}

  publish(status: StreamStatus): Promise<void> {
    const value = JSON.stringify({ state: status.state, reason: status.reason, message: status.message, track: status.trackSid });
    this.latest.set(`${STATUS_ATTR_PREFIX}${status.speakerIdentity}`, value);
    return this.flush();
  }

  /** Sends every speaker's latest status (after connecting). */
  async flush(): Promise<void> {
    const participant = this.participant();
    if (!participant || this.latest.size === 0) return;
    await participant.setAttributes(Object.fromEntries(this.latest));
  }
}
