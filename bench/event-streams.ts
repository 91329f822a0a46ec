// The event stream clients of the webhook rows (bench/webhooks.ts forks this file when BENCH_STREAMS > 0):
// a process of their own, so parsing what 100 streams receive neither slows the sender nor is timed late
// by it. Each stream opens `GET /v1/events/stream` with `Last-Event-ID` set to its organization's newest
// cursor, reconnects with its last id when the server ends it (as EventSource does), and records for every
// event its cursor and received − created_at. `created_at` is the body's, set just before the insert that
// commits it: a lower bound of the commit time, so the figures are upper bounds of commit → received.
// Protocol (IPC): the parent sends the plan, this process answers `ready` once every stream is open; on
// `finish` it waits until each stream has its organization's newest event, compares every stream's cursors
// with the log (`webhook_events`, by organization, after the stream's start) and answers with the summary.
import { fork } from 'node:child_process';
import { Agent, request, type IncomingMessage } from 'node:http';
import { Client } from 'pg';

export interface StreamPlan {
  baseUrl: string;
  databaseUrl: string;
  /** Streams per organization. */
  organizations: { organizationId: string; apiKey: string; streams: number }[];
}

export interface StreamSummary {
  streams: number;
  organizations: number;
  /** Events the log kept for the streams' organizations after they opened. */
  events: number;
  /** Events written to streams, all streams (each stream gets its organization's). */
  deliveries: number;
  /** Events committed per second, and deliveries per second, from the first event's `created_at` to the last reception. */
  eventsPerSecond: number;
  deliveriesPerSecond: number;
  /** received − created_at over every delivery, ms. */
  p50: number | null;
  p99: number | null;
  max: number | null;
  lost: number;
  doubled: number;
  /** Received but not in the organization's log after the stream's start. */
  foreign: number;
  outOfOrder: number;
  /** Times the server ended a stream (each reconnected with its last id). */
  reconnections: number;
  /** Opening answers 429 or 503 (each tried again 100 ms later). */
  refused: number;
  /** Streams that had not received their organization's newest event 30 s after the last was applied. */
  behind: number;
}

type FromParent = { type: 'plan'; plan: StreamPlan } | { type: 'finish' };

/** The parent's side: forks the clients, resolves once every stream is open. */
export interface StreamClients {
  /** Waits for every stream to catch up with the log, compares, and ends the clients. */
  finish(): Promise<StreamSummary>;
}

export async function startStreamClients(plan: StreamPlan): Promise<StreamClients> {
  const child = fork(__filename, [], { execArgv: ['-r', '@swc-node/register'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: { type: string; error?: string } & T) => {
        if (message.type === 'error') reject(new Error(`event stream clients: ${message.error}`));
        else if (message.type === type) resolve(message);
        else return;
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      const onExit = (code: number | null) => reject(new Error(`event stream clients exited with ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = next<object>('ready');
  child.send({ type: 'plan', plan } satisfies FromParent);
  await ready;
  return {
    finish: async () => {
      const result = next<{ summary: StreamSummary }>('result');
      child.send({ type: 'finish' } satisfies FromParent);
      return (await result).summary;
    },
  };
}

/** One stream: its cursors and delays as received, parsed cheaply (the `id:` line, the body's `created_at`). */
class BenchStream {
  readonly seqs: number[] = [];
  readonly delays: number[] = [];
  firstCreatedAt = Infinity;
  lastReceivedAt = 0;
  reconnections = 0;
  /** Opening answers 429 or 503, each tried again. */
  refused = 0;
  private response: IncomingMessage | null = null;
  private closing = false;

  constructor(
    private readonly url: URL,
    private readonly apiKey: string,
    private readonly agent: Agent,
    /** The organization's newest cursor when the stream opened: it receives the events after it. */
    readonly startAfter: number,
  ) {}

  get last(): number {
    return this.seqs.length ? this.seqs[this.seqs.length - 1] : this.startAfter;
  }

  /** Opens (again, after the last cursor received); resolves once the server answered 200. */
  async open(): Promise<void> {
    for (;;) {
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(this.url, {
          agent: this.agent,
          headers: { authorization: `Bearer ${this.apiKey}`, accept: 'text/event-stream', 'last-event-id': String(this.last) },
        });
        req.on('response', resolve);
        req.on('error', reject);
        req.end();
      });
      if (response.statusCode === 200) {
        this.listen(response);
        return;
      }
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      await new Promise((resolve) => response.on('end', resolve));
      // 429: the slot of the stream the server just ended is released a moment after the end; 503: the
      // database's pool was busy (a herd of streams opening at once): both answered again a moment later.
      if (response.statusCode !== 429 && response.statusCode !== 503)
        throw new Error(`GET ${this.url.pathname} answered ${response.statusCode}: ${body}`);
      this.refused++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): void {
    this.closing = true;
    this.response?.destroy();
  }

  private listen(response: IncomingMessage): void {
    this.response = response;
    response.setEncoding('utf8');
    let buffer = '';
    response.on('data', (chunk: string) => {
      const at = Date.now();
      buffer += chunk;
      let start = 0;
      let end: number;
      while ((end = buffer.indexOf('\n\n', start)) >= 0) {
        if (buffer.startsWith('id: ', start)) {
          const seq = Number(buffer.slice(start + 4, buffer.indexOf('\n', start)));
          const field = buffer.indexOf('"created_at":"', start);
          const createdAt = Date.parse(buffer.slice(field + 14, field + 38));
          this.seqs.push(seq);
          this.delays.push(at - createdAt);
          if (createdAt < this.firstCreatedAt) this.firstCreatedAt = createdAt;
          this.lastReceivedAt = at;
        }
        start = end + 2;
      }
      buffer = buffer.slice(start);
    });
    response.on('close', () => {
      if (this.closing) return;
      // The server ended it (a client too far behind is closed): reconnect with the last id, as EventSource does.
      this.reconnections++;
      void this.open().catch((error: Error) => process.send?.({ type: 'error', error: error.message }));
    });
  }
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null;

async function serve(plan: StreamPlan, finished: Promise<void>): Promise<StreamSummary> {
  const db = new Client({ connectionString: plan.databaseUrl });
  await db.connect();
  const newest = async (organizationId: string) =>
    Number(
      (
        await db.query<{ newest: string | null }>('SELECT max(seq)::text AS newest FROM webhook_events WHERE organization_id = $1', [
          organizationId,
        ])
      ).rows[0].newest ?? 0,
    );
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const url = new URL('/v1/events/stream', plan.baseUrl);
  const byOrganization = new Map<string, BenchStream[]>();
  for (const { organizationId, apiKey, streams } of plan.organizations) {
    const startAfter = await newest(organizationId);
    byOrganization.set(
      organizationId,
      Array.from({ length: streams }, () => new BenchStream(url, apiKey, agent, startAfter)),
    );
  }
  const all = [...byOrganization.values()].flat();
  // Ten at a time: what is measured is the streams once open, not a herd opening them.
  for (let i = 0; i < all.length; i += 10) await Promise.all(all.slice(i, i + 10).map((stream) => stream.open()));
  process.send?.({ type: 'ready' });
  await finished;

  const summary: StreamSummary = {
    streams: all.length,
    organizations: byOrganization.size,
    events: 0,
    deliveries: 0,
    eventsPerSecond: 0,
    deliveriesPerSecond: 0,
    p50: null,
    p99: null,
    max: null,
    lost: 0,
    doubled: 0,
    foreign: 0,
    outOfOrder: 0,
    reconnections: 0,
    refused: 0,
    behind: 0,
  };
  const deadline = Date.now() + 30_000;
  for (const [organizationId, streams] of byOrganization) {
    const last = await newest(organizationId);
    while (streams.some((s) => s.last < last) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const { rows } = await db.query<{ seq: string }>(
      'SELECT seq::text AS seq FROM webhook_events WHERE organization_id = $1 AND seq > $2 ORDER BY seq',
      [organizationId, streams[0].startAfter],
    );
    const log = rows.map((row) => Number(row.seq));
    const kept = new Set(log);
    summary.events += log.length;
    for (const stream of streams) {
      if (stream.last < last) summary.behind++;
      const seen = new Set<number>();
      stream.seqs.forEach((seq, i) => {
        if (!kept.has(seq)) summary.foreign++;
        else if (seen.has(seq)) summary.doubled++;
        else seen.add(seq);
        if (i > 0 && seq <= stream.seqs[i - 1]) summary.outOfOrder++;
      });
      summary.lost += log.filter((seq) => !seen.has(seq)).length;
      summary.reconnections += stream.reconnections;
      summary.refused += stream.refused;
    }
  }
  for (const stream of all) stream.close();
  agent.destroy();
  await db.end();

  const delays = new Float64Array(all.reduce((n, s) => n + s.delays.length, 0));
  let at = 0;
  for (const stream of all) {
    delays.set(stream.delays, at);
    at += stream.delays.length;
  }
  delays.sort();
  const first = Math.min(...all.map((s) => s.firstCreatedAt));
  const lastReceived = Math.max(...all.map((s) => s.lastReceivedAt));
  const seconds = (lastReceived - first) / 1000;
  summary.deliveries = delays.length;
  summary.p50 = percentile(delays, 50);
  summary.p99 = percentile(delays, 99);
  summary.max = delays.length ? delays[delays.length - 1] : null;
  if (seconds > 0) {
    summary.eventsPerSecond = Math.round(summary.events / seconds);
    summary.deliveriesPerSecond = Math.round(delays.length / seconds);
  }
  return summary;
}

if (require.main === module) {
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  process.on('message', (message: FromParent) => {
    if (message.type === 'finish') finish();
    else
      serve(message.plan, finished).then(
        (summary) => process.send?.({ type: 'result', summary }, () => process.exit(0)),
        (error: Error) => process.send?.({ type: 'error', error: error.stack ?? error.message }, () => process.exit(1)),
      );
  });
}
