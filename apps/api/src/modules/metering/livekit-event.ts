/** The parts of a LiveKit webhook event (its proto JSON, stored as LiveKit sent it) that metering reads. */
export interface LiveKitEventFacts {
  id: string;
  type: string;
  livekitRoom: string | null;
  createdAt: Date;
  participant: { sid: string; identity: string; isAgent: boolean; joinedAt: Date } | null;
}

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json | null => (typeof value === 'object' && value !== null ? (value as Json) : null);
const asString = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

function epoch(seconds: unknown, millis?: unknown): Date {
  const ms = Number(asString(millis) || 0);
  if (ms > 0) return new Date(ms);
  return new Date(Number(asString(seconds) || 0) * 1000);
}

export function readLiveKitEvent(json: unknown): LiveKitEventFacts {
  const event = asObject(json) ?? {};
  const room = asObject(event.room);
  const participant = asObject(event.participant);
  return {
    id: asString(event.id),
    type: asString(event.event),
    livekitRoom: room ? asString(room.name) || null : null,
    createdAt: epoch(event.createdAt),
    participant: participant
      ? {
          sid: asString(participant.sid),
          identity: asString(participant.identity),
          isAgent: participant.kind === 'AGENT' || participant.kind === 4,
          joinedAt: epoch(participant.joinedAt, participant.joinedAtMs),
        }
      : null,
  };
}
