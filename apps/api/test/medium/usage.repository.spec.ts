import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { UsageRepository } from '../../src/modules/usage/usage.repository';
import { MediumRows } from '../support/medium-rows';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * The usage overview's reads on the real database, without the application: the rollup summed per
 * UTC hour or per local bucket (split where the zone's offset changes), and the rooms started at a
 * window's partial edges, each only ever of the organization asked about.
 */
describe('UsageRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let usage: UsageRepository;
  let rows: MediumRows;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    usage = new UsageRepository(new DatabaseClient(mediumPool(db)));
    rows = new MediumRows(db);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const ms = (iso: string) => new Date(iso).getTime();
  const slot = (organizationId: string, at: string, minutes: number, sessions: number, participants: number) =>
    db.query(`INSERT INTO usage_slots (organization_id, slot, minutes, sessions, participants) VALUES ($1, $2, $3, $4, $5)`, [
      organizationId,
      new Date(at),
      minutes,
      sessions,
      participants,
    ]);
  const byTime = <T extends { atMs: number }>(samples: T[]) => [...samples].sort((a, b) => a.atMs - b.atMs);

  describe('slots', () => {
    it('sums the organization’s slots per UTC hour within [from, to), placed at each hour’s earliest slot; empty slots and other organizations left out', async () => {
      const [a, b] = [await rows.organization(), await rows.organization()];
      await slot(a.organizationId, '2026-04-01T09:00:00Z', 5, 1, 2); // `from`: inside
      await slot(a.organizationId, '2026-04-01T10:15:00Z', 30, 2, 3);
      await slot(a.organizationId, '2026-04-01T10:45:00Z', 12, 1, 1);
      await slot(a.organizationId, '2026-04-01T11:00:00Z', 0, 0, 0); // no session
      await slot(a.organizationId, '2026-04-01T12:00:00Z', 99, 9, 9); // `to`: outside
      await slot(b.organizationId, '2026-04-01T10:15:00Z', 1000, 10, 10);
      const samples = await usage.slots(
        a.organizationId,
        { from: new Date('2026-04-01T09:00:00Z'), to: new Date('2026-04-01T12:00:00Z') },
        { per: 'utc hour' },
      );
      expect(byTime(samples)).toEqual([
        { atMs: ms('2026-04-01T09:00:00Z'), minutes: 5, sessions: 1, participants: 2 },
        { atMs: ms('2026-04-01T10:15:00Z'), minutes: 42, sessions: 3, participants: 4 },
      ]);
      const other = await usage.slots(
        b.organizationId,
        { from: new Date('2026-04-01T00:00:00Z'), to: new Date('2026-04-02T00:00:00Z') },
        { per: 'utc hour' },
      );
      expect(other).toEqual([{ atMs: ms('2026-04-01T10:15:00Z'), minutes: 1000, sessions: 10, participants: 10 }]);
    });

    it('sums per local bucket of the zone, where local days do not follow UTC days', async () => {
      const a = await rows.organization();
      // Asia/Kolkata is UTC+05:30: 18:15Z is 23:45 on the 1st, 18:45Z is 00:15 on the 2nd.
      await slot(a.organizationId, '2026-04-01T10:00:00Z', 10, 1, 1);
      await slot(a.organizationId, '2026-04-01T18:15:00Z', 20, 1, 1);
      await slot(a.organizationId, '2026-04-01T18:45:00Z', 40, 2, 2);
      const samples = await usage.slots(
        a.organizationId,
        { from: new Date('2026-04-01T00:00:00Z'), to: new Date('2026-04-02T00:00:00Z') },
        { per: 'local bucket', granularity: 'day', timezone: 'Asia/Kolkata' },
      );
      expect(byTime(samples)).toEqual([
        { atMs: ms('2026-04-01T10:00:00Z'), minutes: 30, sessions: 2, participants: 2 },
        { atMs: ms('2026-04-01T18:45:00Z'), minutes: 40, sessions: 2, participants: 2 },
      ]);
    });

    it('keeps the repeated local hour of a fall-back apart: same wall-clock hour, two offsets, two samples', async () => {
      const a = await rows.organization();
      // America/New_York falls back on 2026-11-01: 05:15Z (EDT) and 06:15Z (EST) are both 01:15 local.
      await slot(a.organizationId, '2026-11-01T05:15:00Z', 7, 1, 1);
      await slot(a.organizationId, '2026-11-01T06:15:00Z', 8, 1, 1);
      const samples = await usage.slots(
        a.organizationId,
        { from: new Date('2026-11-01T04:00:00Z'), to: new Date('2026-11-01T08:00:00Z') },
        { per: 'local bucket', granularity: 'hour', timezone: 'America/New_York' },
      );
      expect(byTime(samples)).toEqual([
        { atMs: ms('2026-11-01T05:15:00Z'), minutes: 7, sessions: 1, participants: 1 },
        { atMs: ms('2026-11-01T06:15:00Z'), minutes: 8, sessions: 1, participants: 1 },
      ]);
    });
  });

  describe('roomsStartedWithin', () => {
    it('returns one sample per room of the organization started in either edge span: its minutes, one session, participants without translators', async () => {
      const [a, b] = [await rows.organization(), await rows.organization()];
      const inFirst = await rows.room(a, { startedAt: new Date('2026-05-01T09:05:00Z'), minutes: 17 });
      await rows.connection(a.organizationId, inFirst, { kind: 'member', joinedAt: new Date('2026-05-01T09:05:00Z') });
      await rows.connection(a.organizationId, inFirst, { kind: 'guest', joinedAt: new Date('2026-05-01T09:06:00Z') });
      await rows.connection(a.organizationId, inFirst, { kind: 'translator', joinedAt: new Date('2026-05-01T09:06:00Z') });
      await rows.room(a, { startedAt: new Date('2026-05-01T10:20:00Z'), minutes: 4 }); // in the second span
      await rows.room(a, { startedAt: new Date('2026-05-01T09:30:00Z'), minutes: 50 }); // between: the rollup's
      await rows.room(a, { startedAt: new Date('2026-05-01T09:15:00Z'), minutes: 60 }); // the first span's end: outside
      await rows.room(a, { startedAt: null }); // never started
      await rows.room(b, { startedAt: new Date('2026-05-01T09:05:00Z'), minutes: 1000 }); // another organization
      const samples = await usage.roomsStartedWithin(a.organizationId, [
        { from: new Date('2026-05-01T09:02:00Z'), to: new Date('2026-05-01T09:15:00Z') },
        { from: new Date('2026-05-01T10:15:00Z'), to: new Date('2026-05-01T10:25:00Z') },
      ]);
      expect(byTime(samples)).toEqual([
        { atMs: ms('2026-05-01T09:05:00Z'), minutes: 17, sessions: 1, participants: 2 },
        { atMs: ms('2026-05-01T10:20:00Z'), minutes: 4, sessions: 1, participants: 0 },
      ]);
    });
  });
});
