import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Tx } from '../../database/sql';
import type { BatchedLoader } from '../../common/batching/batched-loader';
import { batchedRows } from '../../common/batching/batched-rows';
import { prepared, sql } from '../../database/typed-sql';
import type {
  IAccountsByOrganizationQuery,
  IAccountsByOrganizationResult,
  IInsertChargesQuery,
  IInsertCreditQuery,
  IInsertCreditResult,
  IMoveBalanceQuery,
  ISetLowBalanceThresholdQuery,
} from './credit-accounts.repository.types';

/** An organization's balance with its low-balance threshold (null: no alerts). */
export interface CreditAccount {
  balance: number;
  lowBalanceCents: number | null;
}

export type CreditKind = 'purchase' | 'grant' | 'refund' | 'adjustment';

/** One credit line as recorded (the fields a history line shows). */
export type LedgerRow = IInsertCreditResult;

export interface CreditLine {
  organizationId: string;
  kind: CreditKind;
  cents: number;
  currency: string;
  occurredAt: Date;
  providerReference?: string | null;
  note?: string | null;
}

/**
 * A line of one connection: its charge (`cents` negative), or a correction of that charge when a
 * later event moved the connection's end (`cents` the signed difference, positive when it gives back).
 */
export interface ChargeLine {
  kind: 'charge' | 'charge_correction';
  organizationId: string;
  roomId: string;
  connectionId: number;
  cents: number;
  occurredAt: Date;
}

/** The balance on both sides of one move, and the threshold it was moved against. */
export interface BalanceMove {
  before: number;
  after: number;
  lowBalanceCents: number | null;
}

const ACCOUNTS_BY_ORGANIZATION = sql<IAccountsByOrganizationQuery>`SELECT organization_id, balance_cents, low_balance_cents
  FROM credit_accounts WHERE organization_id = ANY($organizationIds!::uuid[])`;

const SET_LOW_BALANCE_THRESHOLD = sql<ISetLowBalanceThresholdQuery>`INSERT INTO credit_accounts (organization_id, balance_cents, currency, low_balance_cents)
  VALUES ($organizationId!, 0, $currency!, $cents)
  ON CONFLICT (organization_id) DO UPDATE SET low_balance_cents = EXCLUDED.low_balance_cents`;

/** Locks the balance row (creating it at the first move), so the balance before and after are exact. */
const MOVE_BALANCE = sql<IMoveBalanceQuery>`INSERT INTO credit_accounts (organization_id, balance_cents, currency)
  VALUES ($organizationId!, $delta!, $currency!)
  ON CONFLICT (organization_id) DO UPDATE SET balance_cents = credit_accounts.balance_cents + EXCLUDED.balance_cents
  RETURNING balance_cents, low_balance_cents`;

/** A purchase's provider reference is unique among purchases: a second one records nothing. */
const INSERT_CREDIT = sql<IInsertCreditQuery>`INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, provider_reference, note)
  VALUES ($organizationId!, $kind!, $cents!, $currency!, $occurredAt!, $providerReference, $note)
  ON CONFLICT (provider_reference) WHERE kind = 'purchase' DO NOTHING
  RETURNING id, kind, delta_cents, currency, occurred_at, provider_reference`;

const INSERT_CHARGES = sql<IInsertChargesQuery>`INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, room_id, connection_id)
  SELECT organization_id, kind, delta_cents, $currency!, occurred_at, room_id, connection_id
    FROM unnest($organizationIds!::uuid[], $cents!::bigint[], $occurredAts!::timestamptz[], $roomIds!::uuid[],
                $connectionIds!::bigint[], $kinds!::text[])
      AS c(organization_id, delta_cents, occurred_at, room_id, connection_id, kind)`;

/**
 * The credit account aggregate: an organization's balance row (`credit_accounts`) and the
 * append-only lines that move it (`ledger_entries`). Reads of the balance arriving together share
 * one statement; each still starts after its request arrived, so a request sees every charge and
 * purchase committed before it.
 */
@Injectable()
export class CreditAccountsRepository {
  private readonly accounts: BatchedLoader<string, IAccountsByOrganizationResult>;

  constructor(private readonly database: DatabaseClient) {
    this.accounts = batchedRows(
      database,
      prepared('credit_accounts_by_organization', ACCOUNTS_BY_ORGANIZATION),
      (row) => row.organization_id,
    );
  }

  /** 0 and no threshold before the organization's first ledger row. */
  async readAccount(organizationId: string): Promise<CreditAccount> {
    const account = await this.accounts.load(organizationId);
    return {
      balance: account?.balance_cents ?? 0,
      lowBalanceCents: account?.low_balance_cents ?? null,
    };
  }

  async readBalance(organizationId: string): Promise<number> {
    return (await this.readAccount(organizationId)).balance;
  }

  /** Creates the account row when needed; the balance is left as it is. */
  async setLowBalanceThreshold(organizationId: string, currency: string, cents: number | null, tx: Tx): Promise<void> {
    await tx.rows(SET_LOW_BALANCE_THRESHOLD, { organizationId, currency, cents });
  }

  /**
   * Adds `delta` to the balance (a new account starts at 0), holding the row's lock until the
   * transaction ends: concurrent moves see each other's result, never the same `before`. Needs no
   * lock of its caller.
   */
  async moveBalance(organizationId: string, delta: number, currency: string, tx: Tx): Promise<BalanceMove> {
    const [account] = await tx.rows(MOVE_BALANCE, { organizationId, delta, currency });
    const after = account.balance_cents;
    return { before: after - delta, after, lowBalanceCents: account.low_balance_cents };
  }

  /** The line as recorded, or null when a purchase with this provider reference was already recorded. */
  async insertCredit(line: CreditLine, tx: Tx): Promise<LedgerRow | null> {
    const [row] = await tx.rows(INSERT_CREDIT, line);
    return row ?? null;
  }

  /**
   * All charges and corrections with one insert (append-only: needs no lock). The balance is moved
   * separately, by their sum per organization, in the same `tx`.
   */
  async insertCharges(charges: ChargeLine[], currency: string, tx: Tx): Promise<void> {
    if (charges.length === 0) return;
    await tx.rows(INSERT_CHARGES, {
      currency,
      organizationIds: charges.map((charge) => charge.organizationId),
      cents: charges.map((charge) => charge.cents),
      occurredAts: charges.map((charge) => charge.occurredAt),
      roomIds: charges.map((charge) => charge.roomId),
      connectionIds: charges.map((charge) => charge.connectionId),
      kinds: charges.map((charge) => charge.kind),
    });
  }
}
