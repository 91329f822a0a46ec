import type { AppConfig } from '../../config/app-config';
import type { DatabaseClient } from '../../database/database.client';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import type { Tx } from '../../database/sql';
import type { CustomerEvent, CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { BalanceMove, ChargeLine, CreditAccountsRepository, CreditLine, LedgerRow } from './credit-accounts.repository';
import type { AuditEntry, AuditLogService, NonMember } from '../audit/audit-log.service';
import { LedgerService } from './ledger.service';

/** The ledger lines and balance moves the LedgerService decides, with its repository and events replaced. */
describe('LedgerService', () => {
  const tx = {} as Tx;
  const occurredAt = new Date('2026-01-01T10:05:00Z');
  const connection = { organizationId: 'org-1', roomId: 'room-1', connectionId: 7, occurredAt };

  let balance: number;
  let lowBalanceCents: number | null;
  let charges: { rows: ChargeLine[]; currency: string }[];
  let credits: CreditLine[];
  /** False: the repository finds the provider reference already recorded. */
  let creditRecorded: boolean;
  let moves: { organizationId: string; delta: number; currency: string }[];
  let emitted: CustomerEvent[];
  let transactions: number;
  let hot: HotRowWritesService;
  let audited: { by: NonMember; entry: AuditEntry }[];

  function ledger(): LedgerService {
    const accounts = {
      insertCharges: async (rows: ChargeLine[], currency: string) => void charges.push({ rows: [...rows], currency }),
      insertCredit: async (line: CreditLine): Promise<LedgerRow | null> => {
        credits.push(line);
        if (!creditRecorded) return null;
        return {
          id: credits.length,
          kind: line.kind,
          delta_cents: line.cents,
          currency: line.currency,
          occurred_at: line.occurredAt,
          provider_reference: line.providerReference ?? null,
        };
      },
      moveBalance: async (organizationId: string, delta: number, currency: string): Promise<BalanceMove> => {
        moves.push({ organizationId, delta, currency });
        const before = balance;
        balance += delta;
        return { before, after: balance, lowBalanceCents };
      },
    } as unknown as CreditAccountsRepository;
    const events = { emit: async (_tx: Tx, event: CustomerEvent) => void emitted.push(event) } as unknown as CustomerEventsPublisher;
    const database = {
      transaction: <T>(work: (tx: Tx) => Promise<T>) => {
        transactions += 1;
        return work(tx);
      },
    } as unknown as DatabaseClient;
    const config = { credit: { currency: 'usd' } } as unknown as AppConfig;
    const audit = { record: async (_tx: Tx, by: NonMember, entry: AuditEntry) => void audited.push({ by, entry }) } as AuditLogService;
    return new LedgerService(config, database, hot, events, accounts, audit);
  }

  beforeEach(() => {
    balance = 10_000;
    lowBalanceCents = null;
    charges = [];
    credits = [];
    creditRecorded = true;
    moves = [];
    emitted = [];
    transactions = 0;
    hot = new HotRowWritesService();
    audited = [];
  });

  it('writes a charge as a negative charge line and takes it off the balance', async () => {
    await ledger().charge(tx, { ...connection, cents: 30 });
    expect(charges).toEqual([{ rows: [{ kind: 'charge', ...connection, cents: -30 }], currency: 'usd' }]);
    expect(moves).toEqual([{ organizationId: 'org-1', delta: -30, currency: 'usd' }]);
    expect(balance).toBe(9_970);
  });

  it.each([
    ['a charge that grew takes the difference', 12, -12],
    ['a charge that shrank gives the difference back', -9, 9],
  ])('writes a correction as a new line: %s', async (_, cents, delta) => {
    await ledger().correctCharge(tx, { ...connection, cents });
    expect(charges).toEqual([{ rows: [{ kind: 'charge_correction', ...connection, cents: delta }], currency: 'usd' }]);
    expect(moves).toEqual([{ organizationId: 'org-1', delta, currency: 'usd' }]);
    expect(balance).toBe(10_000 + delta);
  });

  it.each(['charge', 'correctCharge'] as const)('writes nothing for a %s of zero cents', async (method) => {
    balance = 0;
    lowBalanceCents = 500;
    await ledger()[method](tx, { ...connection, cents: 0 });
    expect(charges).toEqual([]);
    expect(moves).toEqual([]);
    expect(emitted).toEqual([]);
  });

  it('sums the charges of one deferred transaction into one insert and one balance move, deciding a crossing once', async () => {
    balance = 550;
    lowBalanceCents = 500;
    const l = ledger();
    await hot.deferWithin(tx, async () => {
      await l.charge(tx, { ...connection, cents: 60 });
      await l.charge(tx, { ...connection, connectionId: 8, cents: 50 });
      await l.correctCharge(tx, { ...connection, cents: -10 });
      expect(charges).toEqual([]);
    });
    expect(charges.map(({ rows }) => rows.map((row) => [row.kind, row.connectionId, row.cents]))).toEqual([
      [
        ['charge', 7, -60],
        ['charge', 8, -50],
        ['charge_correction', 7, 10],
      ],
    ]);
    expect(moves).toEqual([{ organizationId: 'org-1', delta: -100, currency: 'usd' }]);
    expect(emitted.map((event) => event.type)).toEqual(['credit.low']);
  });

  it('records a credit line in the account currency and adds it to the balance', async () => {
    const line = await ledger().credit(tx, {
      organizationId: 'org-1',
      kind: 'purchase',
      cents: 2_500,
      occurredAt,
      providerReference: 'cs_1',
    });
    expect(credits).toEqual([
      { organizationId: 'org-1', kind: 'purchase', cents: 2_500, occurredAt, providerReference: 'cs_1', currency: 'usd' },
    ]);
    expect(line).toMatchObject({ kind: 'purchase', delta_cents: 2_500, provider_reference: 'cs_1' });
    expect(moves).toEqual([{ organizationId: 'org-1', delta: 2_500, currency: 'usd' }]);
    expect(balance).toBe(12_500);
  });

  it('moves no balance for a purchase already recorded, and says so with null', async () => {
    creditRecorded = false;
    const line = await ledger().credit(tx, {
      organizationId: 'org-1',
      kind: 'purchase',
      cents: 2_500,
      occurredAt,
      providerReference: 'cs_1',
    });
    expect(line).toBeNull();
    expect(moves).toEqual([]);
    expect(balance).toBe(10_000);
  });

  it.each([
    ['a grant', 1_000, 11_000],
    ['a negative grant (taking credit back)', -4_000, 6_000],
  ])('records %s in a transaction of its own, now', async (_, cents, after) => {
    const before = Date.now();
    const line = await ledger().grant({ organizationId: 'org-1', cents, note: 'goodwill' });
    expect(transactions).toBe(1);
    expect(credits).toEqual([
      { organizationId: 'org-1', kind: 'grant', cents, occurredAt: expect.any(Date) as Date, note: 'goodwill', currency: 'usd' },
    ]);
    expect(credits[0].occurredAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(line).toMatchObject({ kind: 'grant', delta_cents: cents });
    expect(balance).toBe(after);
    expect(audited).toEqual([
      {
        by: { type: 'operator', organizationId: 'org-1' },
        entry: {
          action: 'credit.granted',
          target: { type: 'organization', id: 'org-1' },
          details: { delta_cents: cents, currency: 'usd', note: 'goodwill' },
        },
      },
    ]);
  });

  it('fails a grant the repository did not record', async () => {
    creditRecorded = false;
    await expect(ledger().grant({ organizationId: 'org-1', cents: 1_000 })).rejects.toThrow('The grant was not recorded.');
    expect(moves).toEqual([]);
    expect(audited).toEqual([]);
  });

  it.each<[string, number, number | null, 'charge' | 'credit', number, string[]]>([
    ['a charge that goes under the threshold', 1_000, 500, 'charge', 600, ['credit.low']],
    ['a charge that lands exactly on the threshold', 1_000, 500, 'charge', 500, []],
    ['a charge that empties the balance past the threshold', 600, 500, 'charge', 600, ['credit.low', 'credit.exhausted']],
    ['a charge that goes negative without a threshold', 100, null, 'charge', 150, ['credit.exhausted']],
    ['a charge while already under the threshold', 400, 500, 'charge', 100, []],
    ['a charge while already exhausted', 0, 500, 'charge', 100, []],
    ['a credit that lifts the balance back over', -100, 500, 'credit', 1_000, []],
  ])('emits the low-balance events crossed by %s', async (_, start, threshold, move, cents, types) => {
    balance = start;
    lowBalanceCents = threshold;
    const l = ledger();
    if (move === 'charge') await l.charge(tx, { ...connection, cents });
    else await l.credit(tx, { organizationId: 'org-1', kind: 'purchase', cents, occurredAt, providerReference: 'cs_1' });
    expect(emitted).toEqual(
      types.map((type) => ({
        organizationId: 'org-1',
        type,
        data: { credit_cents: balance, low_balance_cents: threshold, currency: 'usd' },
      })),
    );
  });
});
