import { RoomsRepository } from '../../src/modules/rooms/rooms.repository';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../src/config/app-config';
import { DatabaseClient } from '../../src/database/database.client';
import { HotRowWritesService } from '../../src/database/hot-row-writes.service';
import { CreditAccountsRepository } from '../../src/modules/billing/credit-accounts.repository';
import { LedgerService } from '../../src/modules/billing/ledger.service';
import { AuditEventsRepository } from '../../src/modules/audit/audit-events.repository';
import { AuditLogService } from '../../src/modules/audit/audit-log.service';
import { CustomerEventsPublisher } from '../../src/modules/customer-webhooks/customer-events.publisher';
import { WebhookDeliveriesRepository } from '../../src/modules/customer-webhooks/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../src/modules/customer-webhooks/webhook-endpoints.repository';
import { autocommit } from '../support/autocommit';
import { MediumRows } from '../support/medium-rows';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * The credit account aggregate (balance row + ledger lines) on the real database, without the
 * application: purchases recorded once per provider reference, charges in one insert, the balance
 * before and after each move, every write confined to its organization.
 */
describe('CreditAccountsRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let accounts: CreditAccountsRepository;
  let rows: MediumRows;
  let statements: string[] = [];

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    // Every statement, on the pool or in a transaction, goes through a pg Client.
    const query = Client.prototype.query as (...args: unknown[]) => unknown;
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const statement = args[0] as string | { text: string };
      statements?.push(typeof statement === 'string' ? statement : statement.text);
      return query.apply(this, args);
    } as never);
    database = new DatabaseClient(mediumPool(db));
    accounts = new CreditAccountsRepository(database);
    rows = new MediumRows(db);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await closeMediumDatabase(databaseUrl, db);
  });

  const ledgerOf = async (organizationId: string) =>
    (await db.query(
      `SELECT kind, delta_cents, currency, room_id, connection_id, provider_reference, note FROM ledger_entries
        WHERE organization_id = $1 ORDER BY id`,
      [organizationId],
    )) as Record<string, unknown>[];
  const balanceOf = async (organizationId: string) =>
    (
      (await db.query(`SELECT balance_cents::int AS balance FROM credit_accounts WHERE organization_id = $1`, [organizationId])) as {
        balance: number;
      }[]
    )[0]?.balance ?? null;

  describe('insertCredit', () => {
    it('records a purchase once per provider reference: the second is null and adds no line, whichever organization sends it', async () => {
      const [a, b] = [await rows.organization(), await rows.organization()];
      const at = new Date('2026-03-01T10:00:00.000Z');
      const purchase = { kind: 'purchase' as const, cents: 2500, currency: 'usd', occurredAt: at, providerReference: 'cs_medium_1' };
      const line = await accounts.insertCredit({ organizationId: a.organizationId, ...purchase }, autocommit(database));
      expect(line).toEqual({
        id: expect.any(Number),
        kind: 'purchase',
        delta_cents: 2500,
        currency: 'usd',
        occurred_at: at,
        provider_reference: 'cs_medium_1',
      });
      expect(await accounts.insertCredit({ organizationId: a.organizationId, ...purchase }, autocommit(database))).toBeNull();
      expect(await accounts.insertCredit({ organizationId: b.organizationId, ...purchase, cents: 9999 }, autocommit(database))).toBeNull();
      expect(await ledgerOf(a.organizationId)).toHaveLength(1);
      expect(await ledgerOf(b.organizationId)).toEqual([]);
    });

    it('records every grant, refund and adjustment (only purchases are unique by reference)', async () => {
      const a = await rows.organization();
      const base = { organizationId: a.organizationId, currency: 'usd', occurredAt: new Date() };
      expect(await accounts.insertCredit({ ...base, kind: 'grant', cents: 100, note: 'first' }, autocommit(database))).not.toBeNull();
      expect(await accounts.insertCredit({ ...base, kind: 'grant', cents: 100, note: 'second' }, autocommit(database))).not.toBeNull();
      expect(
        await accounts.insertCredit({ ...base, kind: 'refund', cents: -40, providerReference: 're_1' }, autocommit(database)),
      ).not.toBeNull();
      expect(
        await accounts.insertCredit({ ...base, kind: 'adjustment', cents: -10, providerReference: 're_1' }, autocommit(database)),
      ).not.toBeNull();
      expect((await ledgerOf(a.organizationId)).map((line) => [line.kind, line.delta_cents, line.note])).toEqual([
        ['grant', 100, 'first'],
        ['grant', 100, 'second'],
        ['refund', -40, null],
        ['adjustment', -10, null],
      ]);
    });
  });

  describe('insertCharges', () => {
    it('writes the charges and corrections of several organizations with one statement, each line on its own organization and connection', async () => {
      const [a, b] = [await rows.organization(), await rows.organization()];
      const at = new Date('2026-03-02T09:00:00.000Z');
      const roomA = await rows.room(a, { startedAt: at });
      const roomB = await rows.room(b, { startedAt: at });
      const [a1, a2, b1] = [
        await rows.connection(a.organizationId, roomA, { joinedAt: at }),
        await rows.connection(a.organizationId, roomA, { joinedAt: at }),
        await rows.connection(b.organizationId, roomB, { joinedAt: at }),
      ];
      statements = [];
      await accounts.insertCharges(
        [
          { kind: 'charge', organizationId: a.organizationId, roomId: roomA, connectionId: a1, cents: -30, occurredAt: at },
          { kind: 'charge', organizationId: b.organizationId, roomId: roomB, connectionId: b1, cents: -60, occurredAt: at },
          { kind: 'charge_correction', organizationId: a.organizationId, roomId: roomA, connectionId: a2, cents: -9, occurredAt: at },
        ],
        'usd',
        autocommit(database),
      );
      expect(statements.filter((text) => text.includes('INSERT INTO ledger_entries'))).toHaveLength(1);
      expect(await ledgerOf(a.organizationId)).toEqual([
        { kind: 'charge', delta_cents: -30, currency: 'usd', room_id: roomA, connection_id: a1, provider_reference: null, note: null },
        {
          kind: 'charge_correction',
          delta_cents: -9,
          currency: 'usd',
          room_id: roomA,
          connection_id: a2,
          provider_reference: null,
          note: null,
        },
      ]);
      expect(await ledgerOf(b.organizationId)).toEqual([
        { kind: 'charge', delta_cents: -60, currency: 'usd', room_id: roomB, connection_id: b1, provider_reference: null, note: null },
      ]);
      // The balance is moved separately (by the LedgerService, summed per organization).
      expect(await balanceOf(a.organizationId)).toBeNull();
    });

    it('charges a connection once: a second charge of it fails and rolls back with its transaction', async () => {
      const a = await rows.organization();
      const at = new Date();
      const room = await rows.room(a, { startedAt: at });
      const connectionId = await rows.connection(a.organizationId, room, { joinedAt: at });
      const charge = { kind: 'charge' as const, organizationId: a.organizationId, roomId: room, connectionId, cents: -3, occurredAt: at };
      await accounts.insertCharges([charge], 'usd', autocommit(database));
      await expect(
        database.transaction(async (tx) => {
          await accounts.moveBalance(a.organizationId, -3, 'usd', tx);
          await accounts.insertCharges([charge], 'usd', tx);
        }),
      ).rejects.toThrow(/duplicate key/);
      expect(await ledgerOf(a.organizationId)).toHaveLength(1);
      expect(await balanceOf(a.organizationId)).toBeNull();
      // Corrections of its charge are lines of their own, as many as its end moved.
      await accounts.insertCharges([{ ...charge, kind: 'charge_correction', cents: 1 }], 'usd', autocommit(database));
      await accounts.insertCharges([{ ...charge, kind: 'charge_correction', cents: 1 }], 'usd', autocommit(database));
      expect((await ledgerOf(a.organizationId)).map((line) => [line.kind, line.delta_cents])).toEqual([
        ['charge', -3],
        ['charge_correction', 1],
        ['charge_correction', 1],
      ]);
    });
  });

  describe('moveBalance', () => {
    it('returns the balance before and after as numbers, from 0 on the first move, and moves no other organization', async () => {
      const [a, b] = [await rows.organization(), await rows.organization()];
      await accounts.setLowBalanceThreshold(b.organizationId, 'usd', 300, autocommit(database));
      expect(await accounts.moveBalance(a.organizationId, 1000, 'usd', autocommit(database))).toEqual({
        before: 0,
        after: 1000,
        lowBalanceCents: null,
      });
      expect(await accounts.moveBalance(a.organizationId, -1250, 'usd', autocommit(database))).toEqual({
        before: 1000,
        after: -250,
        lowBalanceCents: null,
      });
      expect(await accounts.moveBalance(b.organizationId, 500, 'usd', autocommit(database))).toEqual({
        before: 0,
        after: 500,
        lowBalanceCents: 300,
      });
      expect(await balanceOf(a.organizationId)).toBe(-250);
      expect(await accounts.readAccount(a.organizationId)).toEqual({ balance: -250, lowBalanceCents: null });
      expect(await accounts.readAccount(b.organizationId)).toEqual({ balance: 500, lowBalanceCents: 300 });
    });

    it('holds the row until commit: a concurrent move waits and sees the first one’s result as its before', async () => {
      const a = await rows.organization();
      await accounts.moveBalance(a.organizationId, 100, 'usd', autocommit(database));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let moved!: () => void;
      const firstMoved = new Promise<void>((resolve) => (moved = resolve));
      const first = database.transaction(async (tx) => {
        const move = await accounts.moveBalance(a.organizationId, 50, 'usd', tx);
        moved();
        await held;
        return move;
      });
      await firstMoved;
      const second = database.transaction((tx) => accounts.moveBalance(a.organizationId, -30, 'usd', tx));
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      expect(await first).toEqual({ before: 100, after: 150, lowBalanceCents: null });
      expect(await second).toEqual({ before: 150, after: 120, lowBalanceCents: null });
    });
  });

  describe('setLowBalanceThreshold', () => {
    it('creates the account at 0 when needed, keeps an existing balance, and sets only that organization’s threshold', async () => {
      const [a, b] = [await rows.organization(), await rows.organization()];
      await accounts.moveBalance(b.organizationId, 700, 'usd', autocommit(database));
      await accounts.setLowBalanceThreshold(b.organizationId, 'usd', 200, autocommit(database));
      await accounts.setLowBalanceThreshold(a.organizationId, 'usd', 50, autocommit(database));
      expect(await accounts.readAccount(a.organizationId)).toEqual({ balance: 0, lowBalanceCents: 50 });
      expect(await accounts.readAccount(b.organizationId)).toEqual({ balance: 700, lowBalanceCents: 200 });
      await accounts.setLowBalanceThreshold(a.organizationId, 'usd', null, autocommit(database));
      expect(await accounts.readAccount(a.organizationId)).toEqual({ balance: 0, lowBalanceCents: null });
      expect(await accounts.readAccount(b.organizationId)).toEqual({ balance: 700, lowBalanceCents: 200 });
    });
  });

  describe('through the LedgerService', () => {
    const config = { credit: { currency: 'usd' } } as AppConfig;
    const ledger = () => {
      const hot = new HotRowWritesService();
      return {
        hot,
        ledger: new LedgerService(
          config,
          database,
          hot,
          new CustomerEventsPublisher(
            hot,
            config,
            new WebhookEndpointsRepository(database),
            new WebhookDeliveriesRepository(database),
            new RoomsRepository(database),
          ),
          accounts,
          new AuditLogService(database, new AuditEventsRepository(database), config),
        ),
      };
    };

    it('a duplicate purchase returns null and leaves the balance where the first one put it', async () => {
      const a = await rows.organization();
      const { ledger: l } = ledger();
      const purchase = { organizationId: a.organizationId, kind: 'purchase' as const, cents: 1500, occurredAt: new Date() };
      const first = await database.transaction((tx) => l.credit(tx, { ...purchase, providerReference: 'cs_medium_ledger' }));
      expect(first).toMatchObject({ kind: 'purchase', delta_cents: 1500, provider_reference: 'cs_medium_ledger' });
      const again = await database.transaction((tx) => l.credit(tx, { ...purchase, providerReference: 'cs_medium_ledger' }));
      expect(again).toBeNull();
      expect(await balanceOf(a.organizationId)).toBe(1500);
      expect(await l.grant({ organizationId: a.organizationId, cents: -200, note: 'operator' })).toMatchObject({
        kind: 'grant',
        delta_cents: -200,
      });
      expect(await balanceOf(a.organizationId)).toBe(1300);
    });

    it('charges deferred in one transaction become one insert and one balance move per organization', async () => {
      const [a, b] = [await rows.organization(), await rows.organization()];
      const at = new Date();
      const [roomA, roomB] = [await rows.room(a, { startedAt: at }), await rows.room(b, { startedAt: at })];
      const connections = [
        [a.organizationId, roomA, await rows.connection(a.organizationId, roomA, { joinedAt: at })],
        [a.organizationId, roomA, await rows.connection(a.organizationId, roomA, { joinedAt: at })],
        [b.organizationId, roomB, await rows.connection(b.organizationId, roomB, { joinedAt: at })],
      ] as const;
      const { hot, ledger: l } = ledger();
      statements = [];
      await database.transaction((tx) =>
        hot.deferWithin(tx, async () => {
          for (const [organizationId, roomId, connectionId] of connections)
            await l.charge(tx, { organizationId, roomId, connectionId, cents: 7, occurredAt: at });
        }),
      );
      expect(statements.filter((text) => text.includes('INSERT INTO ledger_entries'))).toHaveLength(1);
      expect(statements.filter((text) => text.includes('INSERT INTO credit_accounts'))).toHaveLength(2);
      expect(await balanceOf(a.organizationId)).toBe(-14);
      expect(await balanceOf(b.organizationId)).toBe(-7);
    });
  });
});
