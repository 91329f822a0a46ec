/**
 * The V8 flags the API and queue-worker processes run with, wherever they are started: `npm run dev`,
 * `npm run start:api` / `start:worker`, the Docker image (NODE_OPTIONS) and the bench, which measures
 * them as deployed (a unit test keeps the four in step).
 *
 * A young generation of up to 32 MB semi-spaces instead of V8's 16 MB: a LiveKit webhook or a
 * customer-webhook delivery leaves short-lived garbage behind (bodies, parsed events, rows), and
 * with twice the room the processes scavenge less often. It is a ceiling, not an allocation: an idle
 * process stays small. Customer webhook latency at 1,000 events/s, p99 875–1,123 ms against
 * 1,071–1,194 ms without it, p50 491–762 against 700–896, in one alternating sitting
 * (docs/performance-history.md, issue 28).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=32'];
