import { request as httpRequest, type IncomingMessage, type ClientRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message of a Server-Sent Events stream, as a browser's EventSource parses it (comments kept apart). */
export interface StreamMessage {
  id: string | null;
  event: string;
  data: string;
}

/** An open `text/event-stream` answer, parsed as it arrives; any other answer is read whole. */
export interface OpenStream {
  status: number;
  headers: IncomingMessage['headers'];
  /** Messages received so far, in order. */
  messages: StreamMessage[];
  /** Comment lines received so far (`: …`). */
  comments: string[];
  /** `retry:` values received so far. */
  retries: number[];
  /** The last event id, as EventSource keeps it (set by every dispatched block with an `id:`, data or not). */
  lastEventId: () => string | null;
  /** The body of an answer that is not a stream (a refusal). */
  body: () => Promise<string>;
  /** Resolves once `check` holds of the messages (rejects after `timeoutMs`, naming what arrived). */
  waitFor(check: (messages: StreamMessage[]) => boolean, timeoutMs?: number): Promise<StreamMessage[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Cuts the connection, as a client that goes away. */
  close(): void;
}

/** The server listening on a free local port (supertest alone never holds a connection open). */
export async function listening(server: Server): Promise<string> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export async function openStream(server: Server, path: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const base = await listening(server);
  let request: ClientRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    request = httpRequest(`${base}${path}`, { headers: { accept: 'text/event-stream', ...headers } }, resolve);
    request.on('error', reject);
    request.end();
  });
  const messages: StreamMessage[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  let raw = '';
  let current: { id: string | null; event: string; data: string[] } = { id: null, event: 'message', data: [] };
  let lastId: string | null = null;
  const isStream = String(response.headers['content-type'] ?? '').startsWith('text/event-stream');
  response.setEncoding('utf8');
  const ended = new Promise<void>((resolve) => {
    response.on('end', resolve);
    response.on('close', resolve);
    response.on('error', () => resolve());
  });
  response.on('data', (chunk: string) => {
    if (!isStream) {
      raw += chunk;
      return;
    }
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (current.id !== null) lastId = current.id;
        if (current.data.length > 0) messages.push({ id: lastId, event: current.event, data: current.data.join('\n') });
        current = { id: null, event: 'message', data: [] };
        for (const wake of [...waiters]) wake();
        continue;
      }
      if (line.startsWith(':')) {
        comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') current.id = value;
      else if (field === 'event') current.event = value;
      else if (field === 'data') current.data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) retries.push(Number(value));
    }
  });
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    messages,
    comments,
    retries,
    lastEventId: () => lastId,
    ended,
    body: async () => {
      await ended;
      return raw;
    },
    waitFor: (check, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const wake = () => {
          if (!check(messages)) return;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`Timed out waiting on the stream; received: ${messages.map((m) => `${m.id} ${m.event}`).join(', ')}`));
        }, timeoutMs);
        waiters.add(wake);
        wake();
      }),
    close: () => {
      request.destroy();
      response.destroy();
    },
  };
}
