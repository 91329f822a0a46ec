import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { listenLocally } from './listen-locally';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body. */
  event: { id: string; type: string; created_at: string; data: Record<string, unknown> };
  /** Whether the sender has given up on (closed) a request not answered yet. */
  abandoned: boolean;
}

/** What the receiver answers to a request: a status, optionally after a delay, or never (`hang`). */
export type Reply = { status: number; delayMs?: number } | 'hang';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests received and not answered yet, now and at most so far. */
  inFlight: number;
  maxInFlight: number;
  /** Decides each answer (default: 200 at once). */
  reply: (request: ReceivedWebhook, index: number) => Reply;
  /** Resolves once `predicate` holds for the requests received so far. */
  waitFor: (predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number) => Promise<ReceivedWebhook[]>;
  close: () => Promise<void>;
}

/** A customer's webhook endpoint on loopback, recording every request it gets. */
export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const hanging = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    inFlight: 0,
    maxInFlight: 0,
    reply: () => ({ status: 200 }),
    waitFor: async (predicate, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) {
          throw new Error(`receiver: condition not met; got ${receiver.received.map((r) => r.event.type).join(', ') || 'nothing'}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return receiver.received;
    },
    close: async () => {
      for (const release of hanging) release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedWebhook = {
        headers: req.headers,
        body,
        event: JSON.parse(body) as ReceivedWebhook['event'],
        abandoned: false,
      };
      receiver.maxInFlight = Math.max(receiver.maxInFlight, ++receiver.inFlight);
      res.on('close', () => {
        receiver.inFlight--;
        if (!res.writableFinished) request.abandoned = true;
      });
      const index = receiver.received.push(request) - 1;
      const reply = receiver.reply(request, index);
      if (reply === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      const answer = () => res.writeHead(reply.status, { 'content-type': 'text/plain' }).end('ok');
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  receiver.url = `${await listenLocally(server)}${path}`;
  return receiver;
}
