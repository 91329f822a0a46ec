import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { BillingHistoryRepository } from '../../src/modules/billing/billing-history.repository';
import { MediumRows } from '../support/medium-rows';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * The reads behind GET /v1/billing/history on the real database, without the application: credit
 * lines and one line per charged room, newest first, paged without a line lost, repeated or split,
 * and never a line, room or connection of another organization.
 */
describe('BillingHistoryRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let history: BillingHistoryRepository;
  let rows: MediumRows;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    history = new BillingHistoryRepository(new DatabaseClient(mediumPool(db)));
    rows = new MediumRows(db);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const credit = (organizationId: string, kind: string, cents: number, at: string, reference: string | null = null) =>
    db.query(
      `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, provider_reference) VALUES ($1, $2, $3, 'usd', $4, $5)`,
      [organizationId, kind, cents, new Date(at), reference],
    );
  const charge = (organizationId: string, roomId: string, connectionId: number, cents: number, at: string) =>
    db.query(
      `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, room_id, connection_id) VALUES ($1, 'charge', $2, 'usd', $3, $4, $5)`,
      [organizationId, -cents, new Date(at), roomId, connectionId],
    );
  const page = { currency: 'usd' };

  /** Organization A: two purchases, a grant, a call charged over three connections, a call that cost nothing. B: one call, one purchase. */
  async function twoOrganizations() {
    const a = await rows.organization();
    const b = await rows.organization();
    await credit(a.organizationId, 'purchase', 5000, '2026-06-01T08:00:00Z', `cs_a1_${a.organizationId}`);
    const call = await rows.room(a, {
      startedAt: new Date('2026-06-02T10:00:00Z'),
      endedAt: new Date('2026-06-02T10:30:00Z'),
      minutes: 45,
      chargedCents: 135,
    });
    for (const [joined, left, minutes, cents] of [
      ['2026-06-02T10:00:00Z', '2026-06-02T10:20:00Z', 20, 60],
      ['2026-06-02T10:05:00Z', '2026-06-02T10:20:00Z', 15, 45],
      ['2026-06-02T10:01:00Z', '2026-06-02T10:11:00Z', 10, 30],
    ] as const) {
      const connection = await rows.connection(a.organizationId, call, {
        joinedAt: new Date(joined),
        leftAt: new Date(left),
        minutes,
        chargedCents: cents,
      });
      await charge(a.organizationId, call, connection, cents, left);
    }
    await rows.connection(a.organizationId, call, { joinedAt: new Date('2026-06-02T10:25:00Z') }); // still open: in no breakdown
    await rows.room(a, { startedAt: new Date('2026-06-03T09:00:00Z'), endedAt: new Date('2026-06-03T09:01:00Z'), chargedCents: 0 });
    await credit(a.organizationId, 'grant', 300, '2026-06-04T12:00:00Z');
    await credit(a.organizationId, 'purchase', 2000, '2026-06-05T12:00:00Z', `cs_a2_${a.organizationId}`);

    const otherCall = await rows.room(b, {
      startedAt: new Date('2026-06-02T11:00:00Z'),
      endedAt: new Date('2026-06-02T11:10:00Z'),
      minutes: 10,
      chargedCents: 30,
    });
    await rows.connection(b.organizationId, otherCall, {
      joinedAt: new Date('2026-06-02T11:00:00Z'),
      leftAt: new Date('2026-06-02T11:10:00Z'),
      minutes: 10,
      chargedCents: 30,
    });
    await credit(b.organizationId, 'purchase', 7000, '2026-06-06T12:00:00Z', `cs_b1_${b.organizationId}`);
    return { a, b, call, otherCall };
  }

  it('lists credit lines and one line per charged room, newest first, with typed values; charges, free calls and other organizations left out', async () => {
    const { a, call } = await twoOrganizations();
    const lines = await history.lines(a.organizationId, { ...page, limit: 50, offset: 0 });
    expect(lines).toEqual([
      {
        kind: 'purchase',
        occurred_at: new Date('2026-06-05T12:00:00Z'),
        delta_cents: 2000,
        currency: 'usd',
        provider_reference: `cs_a2_${a.organizationId}`,
        room_id: null,
      },
      {
        kind: 'grant',
        occurred_at: new Date('2026-06-04T12:00:00Z'),
        delta_cents: 300,
        currency: 'usd',
        provider_reference: null,
        room_id: null,
      },
      {
        kind: 'room_usage',
        occurred_at: new Date('2026-06-02T10:00:00Z'),
        delta_cents: -135,
        currency: 'usd',
        provider_reference: null,
        room_id: call,
      },
      {
        kind: 'purchase',
        occurred_at: new Date('2026-06-01T08:00:00Z'),
        delta_cents: 5000,
        currency: 'usd',
        provider_reference: `cs_a1_${a.organizationId}`,
        room_id: null,
      },
    ]);
  });

  it('orders lines at the same instant by the later line first', async () => {
    const a = await rows.organization();
    await credit(a.organizationId, 'grant', 1, '2026-06-10T00:00:00Z');
    await credit(a.organizationId, 'grant', 2, '2026-06-10T00:00:00Z');
    await credit(a.organizationId, 'grant', 3, '2026-06-10T00:00:00Z');
    const lines = await history.lines(a.organizationId, { ...page, limit: 10, offset: 0 });
    expect(lines.map((line) => line.delta_cents)).toEqual([3, 2, 1]);
  });

  it('pages through every line exactly once, a call always whole on one page', async () => {
    const { a, call } = await twoOrganizations();
    const all = await history.lines(a.organizationId, { ...page, limit: 50, offset: 0 });
    for (const limit of [1, 2, 3]) {
      const paged = [];
      for (let offset = 0; offset < all.length + limit; offset += limit) {
        paged.push(...(await history.lines(a.organizationId, { ...page, limit, offset })));
      }
      expect(paged).toEqual(all);
      expect(paged.filter((line) => line.room_id === call)).toEqual([expect.objectContaining({ delta_cents: -135 })]);
    }
    expect(await history.lines(a.organizationId, { ...page, limit: 10, offset: Number.MAX_SAFE_INTEGER - 10 })).toEqual([]);
  });

  it('gives rooms and breakdowns of the organization only, even when asked for another’s room ids', async () => {
    const { a, b, call, otherCall } = await twoOrganizations();
    const rooms = await history.rooms(a.organizationId, [call, otherCall]);
    expect(rooms).toEqual([
      expect.objectContaining({
        id: call,
        streaming_mode: 'mono',
        started_at: new Date('2026-06-02T10:00:00Z'),
        ended_at: new Date('2026-06-02T10:30:00Z'),
        total_connection_minutes: 45,
        total_charged_cents: 135,
      }),
    ]);
    expect(await history.rooms(b.organizationId, [call])).toEqual([]);

    const breakdowns = await history.breakdowns(a.organizationId, [call, otherCall]);
    expect([...breakdowns.keys()]).toEqual([call]);
    const participants = JSON.parse(breakdowns.get(call)!) as Record<string, unknown>[];
    // Ended connections only, in join order, times as Date#toJSON writes them.
    expect(participants.map((p) => [p.joined_at, p.left_at, p.connection_minutes, p.charged_cents])).toEqual([
      ['2026-06-02T10:00:00.000Z', '2026-06-02T10:20:00.000Z', 20, 60],
      ['2026-06-02T10:01:00.000Z', '2026-06-02T10:11:00.000Z', 10, 30],
      ['2026-06-02T10:05:00.000Z', '2026-06-02T10:20:00.000Z', 15, 45],
    ]);
    expect((await history.breakdowns(b.organizationId, [call])).size).toBe(0);
  });

  it('versions: "0" before the first line, then moved by the organization’s own lines only', async () => {
    const [a, b] = [await rows.organization(), await rows.organization()];
    expect(await history.version(a.organizationId)).toBe('0');
    await credit(a.organizationId, 'grant', 100, '2026-06-20T00:00:00Z');
    const after = await history.version(a.organizationId);
    expect(after).not.toBe('0');
    expect(await history.version(b.organizationId)).toBe('0');
    await credit(b.organizationId, 'grant', 100, '2026-06-20T00:00:00Z');
    expect(await history.version(a.organizationId)).toBe(after);
  });
});
