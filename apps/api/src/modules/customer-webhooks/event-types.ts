/** The events we send to customers' webhook endpoints (extensions.md). */
export const CUSTOMER_EVENT_TYPES = [
  'room.started',
  'room.ended',
  'room.usage_corrected',
  'translator.joined',
  'translator.left',
  'participant.joined',
  'participant.left',
  'credit.purchased',
  'credit.low',
  'credit.exhausted',
  'transcript.ready',
] as const;

export type CustomerEventType = (typeof CUSTOMER_EVENT_TYPES)[number];
