// The traffic of the webhook rows (bench/webhooks.ts): LiveKit events sent to the API, as fast as it
// answers or at an offered rate, reordered and redelivered on request, the customer endpoints on
// loopback that receive our deliveries, and the latency summary of each stage.
import autocannon from 'autocannon';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Body {
  body: string;
  headers: Record<string, string>;
}

/** A customer endpoint on loopback: records when each room's room.started arrives; answers 204 after `delayMs`. */
export async function startReceiver(delayMs: number, arrivals: Map<string, number[]>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id?: string } };
      if (delayMs === 0 && event.type === 'room.started' && event.data.id) {
        const times = arrivals.get(event.data.id) ?? [];
        times.push(at);
        arrivals.set(event.data.id, times);
      }
      setTimeout(() => res.writeHead(204).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

export type Sent = (index: number) => void;
export interface Sending {
  /** When the last answer came. */
  lastAnswer: number;
  /** Answers other than 2xx, and errors. */
  rejected: number;
}

/**
 * As fast as the API answers, `connections` at a time, with autocannon's HTTP client: the sender shares
 * this machine's two cores with the API under test, and node:http would take several times the CPU per request.
 */
export async function sendAtFullSpeed(target: URL, bodies: Body[], connections: number, onSent: Sent): Promise<Sending> {
  let next = 0;
  const run = autocannon({
    url: target.origin,
    connections: Math.min(connections, bodies.length),
    amount: bodies.length,
    requests: [
      {
        method: 'POST',
        path: target.pathname,
        setupRequest: (request) => {
          onSent(next);
          const { body, headers } = bodies[next++ % bodies.length];
          return { ...request, body, headers };
        },
      },
    ],
  });
  // autocannon settles only at its next one-second tick after the last answer: the accepting ends
  // with the last answer itself, and waiting for the events to be applied starts there.
  let answered = 0;
  let lastAnswer = 0;
  const allAnswered = new Promise<void>((resolve) => {
    run.on('response', () => {
      lastAnswer = Date.now();
      if (++answered === bodies.length) resolve();
    });
  });
  await Promise.race([allAnswered, run]);
  const result = await run;
  return { lastAnswer, rejected: result.non2xx + result.errors };
}

/**
 * At `rate` events/s, each sent when its turn comes whatever the answers before it (an offered load,
 * as LiveKit sends): with node:http, which writes a request when asked (autocannon prepares requests
 * ahead of its rate limiter, so it cannot tell when one leaves).
 */
const SENDER_CONNECTIONS = 64;

export async function sendPaced(target: URL, bodies: Body[], rate: number, onSent: Sent): Promise<Sending> {
  const agent = new Agent({ keepAlive: true, maxSockets: SENDER_CONNECTIONS });
  // Connections open before the clock starts, as a sender's pool is between its webhooks.
  await Promise.all(
    Array.from(
      { length: SENDER_CONNECTIONS },
      () =>
        new Promise<void>((resolve) => request(new URL('/health/live', target), { agent }, (res) => res.resume().on('end', resolve)).end()),
    ),
  );
  let rejected = 0;
  let lastAnswer = 0;
  let answered = 0;
  const begin = performance.now();
  await new Promise<void>((resolve) => {
    const settle = (ok: boolean) => {
      if (!ok) rejected++;
      lastAnswer = Date.now();
      if (++answered === bodies.length) resolve();
    };
    let next = 0;
    const tick = () => {
      const due = Math.min(bodies.length, Math.floor(((performance.now() - begin) / 1000) * rate) + 1);
      for (; next < due; next++) {
        const { body, headers } = bodies[next];
        onSent(next);
        const req = request(
          target,
          { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', () => settle((res.statusCode ?? 0) < 300));
          },
        );
        req.on('error', () => settle(false));
        req.end(body);
      }
      if (next < bodies.length) setTimeout(tick, 1);
    };
    tick();
  });
  agent.destroy();
  return { lastAnswer, rejected };
}

/**
 * Moves a fraction of the events each to a random later place (delivered late), then sends another
 * fraction again at a random later place (a redelivery, same event id). Seeded: every run sends the same.
 */
export function disorder(bodies: Body[], fraction: number): void {
  let seed = 20261126;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const count = Math.round(bodies.length * fraction);
  for (let i = 0; i < count; i++) {
    const from = Math.floor(random() * bodies.length);
    const [moved] = bodies.splice(from, 1);
    bodies.splice(from + Math.floor(random() * (bodies.length - from + 1)), 0, moved);
  }
  for (let i = 0; i < count; i++) {
    const from = Math.floor(random() * bodies.length);
    bodies.splice(from + 1 + Math.floor(random() * (bodies.length - from)), 0, bodies[from]);
  }
}

export const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null;

export interface Stage {
  p50: number;
  p95: number;
  p99: number;
}

/** p50, p95 and p99 of the finite values, in whole ms. */
export function stage(values: number[]): Stage {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(sorted, p) ?? NaN);
  return { p50: at(50), p95: at(95), p99: at(99) };
}
