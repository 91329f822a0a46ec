import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { NotificationsClient, type Listener } from '../../database/notifications.client';
import { EventLogRepository, type LoggedEvent } from './event-log.repository';

/** Events read per organization and query; an organization with more is read again at once. */
const READ_BATCH = 500;
/** After a failed read, the organizations still owed events are read again this much later. */
const RETRY_MS = 1_000;

/** One open stream's share of the fan-out: it gets each batch of its organization's events after it subscribed. */
export interface Subscription {
  /** Every event of the organization this process read after `cursorAtStart`, in cursor order. */
  readonly cursorAtStart: number;
  close(): void;
}

type Receiver = (events: LoggedEvent[]) => void;

/** What this process has read of one organization's log, and the streams that want it. */
interface Hub {
  /** The last cursor read (null until the first read of its newest one). */
  cursor: number | null;
  receivers: Set<Receiver>;
  ready: Promise<void>;
}

/**
 * One LISTEN per process (`customer_events`, notified at the commit of every insert of events with the
 * organizations they belong to), fanned out in memory: a notification reads each organization's new
 * events once, with one query for all the organizations notified, and hands them to every stream of
 * that organization. Within an organization the cursor (`seq`) is commit order, so "after the last
 * cursor read" never misses an event that committed later.
 */
@Injectable()
export class EventFanoutService implements OnModuleDestroy {
  private readonly logger = new Logger(EventFanoutService.name);
  private readonly hubs = new Map<string, Hub>();
  private listener: Promise<Listener> | null = null;
  private readonly owed = new Set<string>();
  private reading: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly notifications: NotificationsClient,
    private readonly log: EventLogRepository,
  ) {}

  /**
   * Subscribes to the organization's events committed from now on; `cursorAtStart` says where the
   * fan-out stood: events up to it were committed before, so a reader replaying the log up to now
   * and then taking the fan-out's batches misses none.
   */
  async subscribe(organizationId: string, receive: Receiver): Promise<Subscription> {
    await this.listening();
    let hub = this.hubs.get(organizationId);
    if (!hub) {
      const created: Hub = { cursor: null, receivers: new Set(), ready: Promise.resolve() };
      created.ready = this.log.cursorState(organizationId, 0).then(
        (state) => {
          created.cursor = state.newest ?? 0;
        },
        (error: unknown) => {
          if (this.hubs.get(organizationId) === created) this.hubs.delete(organizationId);
          throw error;
        },
      );
      this.hubs.set(organizationId, created);
      hub = created;
    }
    await hub.ready;
    const current = hub;
    current.receivers.add(receive);
    // Read now: anything committed between the hub's first read and this subscription is owed.
    this.owe([organizationId]);
    return {
      cursorAtStart: current.cursor!,
      close: () => {
        current.receivers.delete(receive);
        if (current.receivers.size === 0 && this.hubs.get(organizationId) === current) this.hubs.delete(organizationId);
      },
    };
  }

  /** Open streams of this process, all organizations. */
  get receivers(): number {
    let n = 0;
    for (const hub of this.hubs.values()) n += hub.receivers.size;
    return n;
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = null;
    await listener?.then((l) => l.close()).catch(() => undefined);
  }

  private listening(): Promise<Listener> {
    this.listener ??= this.notifications.listen('customer_events', {
      onNotification: (payload) => this.owe(payload === '' ? [...this.hubs.keys()] : payload.split(',')),
      // Listening again after a lost connection: what committed meanwhile was never notified.
      onListening: () => this.owe([...this.hubs.keys()]),
    });
    return this.listener;
  }

  private owe(organizationIds: string[]): void {
    for (const id of organizationIds) if (this.hubs.has(id)) this.owed.add(id);
    if (this.owed.size > 0 && !this.reading && !this.closed) this.reading = this.readOwed().finally(() => (this.reading = null));
  }

  private async readOwed(): Promise<void> {
    while (this.owed.size > 0 && !this.closed) {
      const hubs = [...this.owed]
        .map((id) => [id, this.hubs.get(id)] as const)
        .filter((entry): entry is readonly [string, Hub] => entry[1] !== undefined && entry[1].cursor !== null);
      this.owed.clear();
      if (hubs.length === 0) return;
      let events: LoggedEvent[];
      try {
        events = await this.log.after(
          hubs.map(([organizationId, hub]) => ({ organizationId, after: hub.cursor! })),
          READ_BATCH,
        );
      } catch (error) {
        this.logger.warn(`Could not read new events (${(error as Error).message}); reading again in ${RETRY_MS / 1000} s`);
        for (const [id] of hubs) this.owed.add(id);
        this.retryLater();
        return;
      }
      const byOrganization = new Map<string, LoggedEvent[]>();
      for (const event of events) {
        const list = byOrganization.get(event.organizationId);
        if (list) list.push(event);
        else byOrganization.set(event.organizationId, [event]);
      }
      for (const [organizationId, batch] of byOrganization) {
        const hub = this.hubs.get(organizationId);
        if (hub === undefined || hub.cursor === null) continue;
        if (batch.length === READ_BATCH) this.owed.add(organizationId);
        // A hub made again while this read was out starts at its own cursor: nothing before it is its.
        const fresh = batch.filter((event) => event.seq > hub.cursor!);
        if (fresh.length === 0) continue;
        hub.cursor = fresh[fresh.length - 1].seq;
        for (const receive of hub.receivers) receive(fresh);
      }
    }
  }

  private retryLater(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.owe([...this.owed]);
    }, RETRY_MS);
    this.retry.unref();
  }
}
