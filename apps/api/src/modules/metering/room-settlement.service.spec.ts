import type { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import type { DurableQueueService, DurableSource } from '../../queue/durable-queue.service';
import type { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { RoomRow } from '../rooms/room-rows';
import type { RoomsRepository } from '../rooms/rooms.repository';
import type { InboundEventsService } from '../webhooks/inbound-events.service';
import { RoomSettlementService } from './room-settlement.service';

/** When an ended room's `room.ended` is decided, with its repositories replaced. */
describe('RoomSettlementService', () => {
  const room = (status: RoomRow['status']): RoomRow => ({
    id: 'room-1',
    organization_id: 'org-1',
    name: 'standup',
    livekit_name: 'org-1.standup',
    status,
    created_at: new Date(0),
    started_at: new Date(0),
    ended_at: status === 'ended' ? new Date(60_000) : null,
    streaming_mode: null,
    translator_present: false,
    translator_generation: 0,
    livekit_seen_at: null,
    settled: false,
    total_connection_minutes: 0,
    total_charged_cents: 0,
  });

  let locked: RoomRow | null;
  let unapplied: Set<string>;
  let settled: boolean;
  let emitted: unknown[];
  let source: DurableSource;
  let due: { organizationId: string; id: string }[];

  function settlement(): RoomSettlementService {
    const database = { transaction: <T>(work: (tx: Sql) => Promise<T>) => work({} as Sql) } as unknown as DatabaseClient;
    const rooms = {
      lockForLifecycle: async () => locked,
      markSettled: async () => {
        if (settled) return false;
        settled = true;
        return true;
      },
      settlingDue: async () => due,
    } as unknown as RoomsRepository;
    const inbound = {
      subjectsWithUnapplied: async (_provider: string, subjects: string[]) => new Set(subjects.filter((s) => unapplied.has(s))),
    } as unknown as InboundEventsService;
    const events = { emit: async (_tx: Sql, event: unknown) => void emitted.push(event) } as unknown as CustomerEventsPublisher;
    const durable = { register: (registered: DurableSource) => (source = registered) } as unknown as DurableQueueService;
    return new RoomSettlementService(database, rooms, inbound, events, durable);
  }

  beforeEach(() => {
    locked = room('ended');
    unapplied = new Set();
    settled = false;
    emitted = [];
    due = [];
  });

  it('sends room.ended once the room has ended and none of its events waits to be applied, and only once', async () => {
    const s = settlement();
    expect(await s.settle({ organizationId: 'org-1', roomId: 'room-1' })).toBe(true);
    expect(emitted).toEqual([{ organizationId: 'org-1', type: 'room.ended', roomId: 'room-1' }]);
    expect(await s.settle({ organizationId: 'org-1', roomId: 'room-1' })).toBe(false);
    expect(emitted).toHaveLength(1);
  });

  it('waits while an event of the room is stored and not applied yet', async () => {
    unapplied.add('org-1.standup');
    const s = settlement();
    expect(await s.settle({ organizationId: 'org-1', roomId: 'room-1' })).toBe(false);
    expect(settled).toBe(false);
    expect(emitted).toEqual([]);
  });

  it('never settles a room that has not ended, or that the organization does not have', async () => {
    locked = room('active');
    expect(await settlement().settle({ organizationId: 'org-1', roomId: 'room-1' })).toBe(false);
    locked = null;
    expect(await settlement().settle({ organizationId: 'org-2', roomId: 'room-1' })).toBe(false);
    expect(emitted).toEqual([]);
  });

  it('enqueues one settle job per due room and sweep round: processes sweeping in the same second ask once, the next round again', async () => {
    settlement();
    due = [{ organizationId: 'org-1', id: 'room-1' }];
    const [first] = await source.due(5_000);
    const [sameRound] = await source.due(5_400);
    const [nextRound] = await source.due(6_000);
    expect(first).toMatchObject({ queue: 'livekit-events', name: 'room.settle', payload: { organizationId: 'org-1', roomId: 'room-1' } });
    expect(sameRound.jobId).toBe(first.jobId);
    expect(nextRound.jobId).not.toBe(first.jobId);
  });
});
