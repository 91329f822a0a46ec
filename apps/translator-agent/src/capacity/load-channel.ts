/**
 * The channel between the agents-js worker process and its job processes (one per room, forked by
 * agents-js, whose own IPC channel we cannot reach from either side). A Unix socket whose path the
 * job processes inherit in TRANSLATOR_LOAD_SOCKET: a room asks the worker's one `StreamBudget` for
 * each speaker's service, and sends its metrics; the worker tells every room when it drains. A job
 * process that exits closes its connection, which frees its streams: a crashed room never holds capacity.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import type { StreamAdmission, StreamBudget, StreamService } from './stream-budget';

export const LOAD_SOCKET_ENV = 'TRANSLATOR_LOAD_SOCKET';

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

type ToWorker = { t: 'admit'; id: number; s: string } | { t: 'release'; s: string } | { t: 'metrics'; m: Snapshot };
type ToJob = { t: 'admitted'; id: number; service: StreamService } | { t: 'promote'; s: string } | { t: 'drain' };

function send(socket: Socket, message: ToWorker | ToJob): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/** The worker's side: one budget for every job process. */
export class LoadChannelServer {
  private readonly server: Server;
  private readonly connections = new Map<number, { socket: Socket; streams: Set<string>; metrics: Snapshot | null }>();
  /** Counters and histograms of job processes that ended, summed, so totals never go down. */
  private retired: Snapshot[] = [];
  private retiring = Promise.resolve();
  private nextId = 0;
  private draining = false;

  constructor(
    private readonly budget: StreamBudget,
    private readonly socketPath: string,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.socketPath, () => resolve());
    });
  }

  close(): Promise<void> {
    for (const { socket } of this.connections.values()) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /**
   * The worker is draining (SIGTERM or SIGINT): every room, and any that connects later, is told to
   * finish what it heard and leave, so agents-js's drain ends when the rooms are done, not at its timeout.
   */
  drain(): void {
    this.draining = true;
    for (const { socket } of this.connections.values()) send(socket, { t: 'drain' });
  }

  /** The job processes' latest metrics, and the sums of those that ended. */
  jobMetrics(): Snapshot[] {
    return [...this.retired, ...[...this.connections.values()].flatMap((c) => (c.metrics ? [c.metrics] : []))];
  }

  private accept(socket: Socket): void {
    const connection = { socket, streams: new Set<string>(), metrics: null as Snapshot | null };
    const id = (this.nextId += 1);
    this.connections.set(id, connection);
    if (this.draining) send(socket, { t: 'drain' });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.connections.delete(id);
      for (const stream of connection.streams) this.release(stream);
      const last = connection.metrics;
      if (last) this.retiring = this.retiring.then(() => this.retire(last)).catch(() => undefined);
    });
    const lines = createInterface({ input: socket });
    lines.on('line', (line) => {
      let message: ToWorker;
      try {
        message = JSON.parse(line) as ToWorker;
      } catch {
        return;
      }
      const key = (s: string) => `${id}:${s}`;
      switch (message.t) {
        case 'admit':
          connection.streams.add(key(message.s));
          send(socket, { t: 'admitted', id: message.id, service: this.budget.admit(key(message.s)) });
          return;
        case 'release':
          connection.streams.delete(key(message.s));
          this.release(key(message.s));
          return;
        case 'metrics':
          connection.metrics = message.m;
          return;
      }
    });
  }

  private release(stream: string): void {
    const promoted = this.budget.release(stream);
    if (promoted === null) return;
    const [connection, ...rest] = promoted.split(':');
    const owner = this.connections.get(Number(connection));
    if (owner) send(owner.socket, { t: 'promote', s: rest.join(':') });
  }

  private async retire(metrics: Snapshot): Promise<void> {
    // Gauges of an ended room describe nothing any more; its counters and histograms stay in the totals.
    const kept = metrics.filter((m) => (m.type as unknown as string) !== 'gauge');
    const summed = AggregatorRegistry.aggregate([...this.retired, kept] as Parameters<typeof AggregatorRegistry.aggregate>[0]);
    this.retired = [(await summed.getMetricsAsJSON()) as Snapshot];
  }
}

/** A job process's side: the `StreamAdmission` of its room, answered by the worker. */
export class LoadChannelClient implements StreamAdmission {
  private readonly waiting = new Map<number, (service: StreamService) => void>();
  private readonly listeners: ((streamId: string) => void)[] = [];
  private readonly drainListeners = new Set<() => void>();
  private draining = false;
  private nextId = 0;

  private constructor(private readonly socket: Socket) {
    createInterface({ input: socket }).on('line', (line) => {
      const message = JSON.parse(line) as ToJob;
      switch (message.t) {
        case 'admitted':
          this.waiting.get(message.id)?.(message.service);
          this.waiting.delete(message.id);
          return;
        case 'promote':
          for (const listener of this.listeners) listener(message.s);
          return;
        case 'drain':
          this.draining = true;
          for (const listener of this.drainListeners) listener();
          return;
      }
    });
    // The worker is gone (it is exiting): whoever still asks is served in full rather than left waiting.
    socket.on('close', () => {
      for (const resolve of this.waiting.values()) resolve('full');
      this.waiting.clear();
    });
  }

  static connect(socketPath: string): Promise<LoadChannelClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(socketPath);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        socket.on('error', () => undefined);
        resolve(new LoadChannelClient(socket));
      });
    });
  }

  admit(streamId: string): Promise<StreamService> {
    if (this.socket.destroyed) return Promise.resolve('full');
    const id = (this.nextId += 1);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      send(this.socket, { t: 'admit', id, s: streamId });
    });
  }

  release(streamId: string): void {
    send(this.socket, { t: 'release', s: streamId });
  }

  onPromote(listener: (streamId: string) => void): void {
    this.listeners.push(listener);
  }

  /** Calls `listener` when the worker drains (at once if it already does); returns what stops listening. */
  onDrain(listener: () => void): () => void {
    this.drainListeners.add(listener);
    if (this.draining) listener();
    return () => this.drainListeners.delete(listener);
  }

  async sendMetrics(registry: Registry): Promise<void> {
    send(this.socket, { t: 'metrics', m: (await registry.getMetricsAsJSON()) as Snapshot });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.end(() => resolve()));
  }
}
