/** Queue names shared by the API and the translator agent. One place, so a typo cannot split a queue. */
export const QUEUES = {
  /** Stored LiveKit webhook events, applied by the API's metering worker. */
  livekitEvents: 'livekit-events',
  /** Stored Stripe webhook events, applied by the API's payments worker. */
  stripeEvents: 'stripe-events',
  /** translator.dispatch / translator.dismiss jobs, consumed by the translator agent app. */
  translatorPresence: 'translator-presence',
  /** Reports from translator agents (joined, left, latency), consumed by the API. */
  translatorEvents: 'translator-events',
  /** Deliveries of the webhooks we send to customers (one job per attempt), consumed by the API. */
  customerWebhooks: 'customer-webhooks',
  /**
   * Runs of the periodic jobs (sweeps, retention, cleanups), one job per period for the whole
   * deployment (BullMQ job schedulers), consumed by the API processes that run the queue workers.
   */
  periodic: 'periodic',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** The queues each app consumes; an app refuses to boot when one of its queues has no handler or two. */
export const API_CONSUMED_QUEUES: readonly QueueName[] = [
  QUEUES.livekitEvents,
  QUEUES.stripeEvents,
  QUEUES.translatorEvents,
  QUEUES.customerWebhooks,
  QUEUES.periodic,
];
export const AGENT_CONSUMED_QUEUES: readonly QueueName[] = [QUEUES.translatorPresence];
