import type { AppConfig } from '../../config/app-config';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import type { Tx } from '../../database/sql';
import type { LedgerService } from '../billing/ledger.service';
import type { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { RoomsRepository } from '../rooms/rooms.repository';
import { ConnectionMeterService, type MeteredRoom } from './connection-meter.service';
import type { ConnectionEnd, ConnectionsRepository, CorrectedConnection, OpenConnection } from './connections.repository';
import type { UsageRollupService } from './usage-rollup.service';

/** The meter's decisions with its repositories replaced: what it asks them to write, and the ledger lines it decides. */
describe('ConnectionMeterService', () => {
  const tx = {} as Tx;
  const room: MeteredRoom = {
    id: 'room-1',
    name: 'standup',
    organization_id: 'org-1',
    started_at: new Date('2026-01-01T10:00:00Z'),
    settled: false,
    total_connection_minutes: 0,
    total_charged_cents: 0,
  };
  const joinedAt = new Date('2026-01-01T10:00:00Z');
  const connection: OpenConnection = { id: 7, organizationId: 'org-1', roomId: 'room-1', joinedAt, centsPerMinute: 3 };
  const at = (seconds: number) => new Date(joinedAt.getTime() + seconds * 1000);

  let ends: ConnectionEnd[][];
  let totals: { minutes: number; cents: number }[];
  let usage: number[];
  let charges: { cents: number }[];
  let corrections: { cents: number; occurredAt: Date }[];
  /** What the repository finds recorded for the connection when asked to move its end. */
  let recorded: { leftAt: Date; minutes: number; cents: number } | null;

  function meter(): ConnectionMeterService {
    const connections = {
      moveEndsEarlier: async (moved: ConnectionEnd[]): Promise<CorrectedConnection[]> => {
        ends.push(moved);
        return moved
          .filter((end) => recorded !== null && recorded.leftAt > end.leftAt)
          .map((end) => ({
            id: end.id,
            organizationId: end.organizationId,
            roomId: 'room-1',
            leftAt: end.leftAt,
            previousMinutes: recorded!.minutes,
            previousCents: recorded!.cents,
            minutes: end.minutes,
            cents: end.cents,
          }));
      },
    } as unknown as ConnectionsRepository;
    const rooms = {
      addToTotals: async (deltas: { minutes: number; cents: number }[]) =>
        void totals.push(...deltas.map(({ minutes, cents }) => ({ minutes, cents }))),
    } as unknown as RoomsRepository;
    const rollup = {
      addToRoom: async (_tx: Tx, _room: unknown, delta: { minutes: number }) => void usage.push(delta.minutes),
    } as unknown as UsageRollupService;
    const ledger = {
      charge: async (_tx: Tx, entry: { cents: number }) => void charges.push({ cents: entry.cents }),
      correctCharge: async (_tx: Tx, entry: { cents: number; occurredAt: Date }) =>
        void corrections.push({ cents: entry.cents, occurredAt: entry.occurredAt }),
    } as unknown as LedgerService;
    const config = { maxConnectionMinutes: 60 } as AppConfig;
    return new ConnectionMeterService(ledger, rollup, new HotRowWritesService(), config, {} as CustomerEventsPublisher, connections, rooms);
  }

  beforeEach(() => {
    ends = [];
    totals = [];
    usage = [];
    charges = [];
    corrections = [];
    recorded = null;
  });

  it('moves an end earlier to the started minutes of the new end and corrects the charge by the difference', async () => {
    recorded = { leftAt: at(201), minutes: 4, cents: 12 };
    await meter().moveEndsEarlier(tx, [{ room, connection, leftAt: at(61) }]);
    expect(ends).toEqual([[{ organizationId: 'org-1', id: 7, leftAt: at(61), minutes: 2, cents: 6 }]]);
    // The room's totals and its usage go down by 2 minutes and 6 cents; the ledger gets a new line of -6 (a credit back).
    expect(totals).toEqual([{ minutes: -2, cents: -6 }]);
    expect(usage).toEqual([-2]);
    expect(corrections).toEqual([{ cents: -6, occurredAt: at(61) }]);
    expect(charges).toEqual([]);
  });

  it('writes no ledger line when the new end falls in the same started minute', async () => {
    recorded = { leftAt: at(119), minutes: 2, cents: 6 };
    await meter().moveEndsEarlier(tx, [{ room, connection, leftAt: at(61) }]);
    expect(ends[0]).toEqual([expect.objectContaining({ leftAt: at(61), minutes: 2, cents: 6 })]);
    expect(corrections).toEqual([]);
    expect(totals).toEqual([]);
  });

  it('changes nothing for an end later than the recorded one', async () => {
    recorded = { leftAt: at(61), minutes: 2, cents: 6 };
    await meter().moveEndsEarlier(tx, [{ room, connection, leftAt: at(201) }]);
    expect(corrections).toEqual([]);
    expect(totals).toEqual([]);
    expect(usage).toEqual([]);
  });

  it('never ends a connection before it began: an end reported before the join bills one minute from the join', async () => {
    recorded = { leftAt: at(300), minutes: 5, cents: 15 };
    await meter().moveEndsEarlier(tx, [{ room, connection, leftAt: at(-30) }]);
    expect(ends[0]).toEqual([expect.objectContaining({ leftAt: joinedAt, minutes: 1, cents: 3 })]);
    expect(corrections).toEqual([{ cents: -12, occurredAt: joinedAt }]);
  });
});
