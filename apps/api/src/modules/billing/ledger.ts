import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import { balanceKey, LEDGER_CHARGES_KEY } from '../../database/hot-row-keys';
import { HotRowWrites } from '../../database/hot-row-writes';
import type { AppConfig } from '../../config/app-config';
import { CustomerEvents } from '../customer-webhooks/customer-events';
import type { Sql } from '../../database/sql';

export type CreditKind = 'purchase' | 'grant' | 'refund' | 'adjustment';

export interface LedgerRow {
  id: number;
  kind: string;
  delta_cents: number;
  currency: string;
  occurred_at: Date;
  provider_reference: string | null;
}

/** Appends ledger rows and moves the balance in the same transaction. */
@Injectable()
export class Ledger {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly hot: HotRowWrites,
    private readonly events: CustomerEvents,
  ) {}

  async charge(
    tx: Sql,
    entry: { organizationId: string; roomId: string; connectionId: number; cents: number; occurredAt: Date },
  ): Promise<void> {
    if (entry.cents === 0) return;
    await this.hot.append(tx, LEDGER_CHARGES_KEY, { ...entry, cents: -entry.cents }, (rows) =>
      tx.rows(
        `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, room_id, connection_id)
         SELECT organization_id, 'charge', delta_cents, $1, occurred_at, room_id, connection_id
           FROM unnest($2::uuid[], $3::bigint[], $4::timestamptz[], $5::uuid[], $6::bigint[])
             AS c(organization_id, delta_cents, occurred_at, room_id, connection_id)`,
        [
          this.config.credit.currency,
          rows.map((row) => row.organizationId),
          rows.map((row) => row.cents),
          rows.map((row) => row.occurredAt),
          rows.map((row) => row.roomId),
          rows.map((row) => row.connectionId),
        ],
      ),
    );
    await this.moveBalance(tx, entry.organizationId, -entry.cents);
  }

  /** A credit line; returns null when a purchase with this provider reference was already recorded. */
  async credit(
    tx: Sql,
    entry: {
      organizationId: string;
      kind: CreditKind;
      cents: number;
      occurredAt: Date;
      providerReference?: string | null;
      note?: string | null;
    },
  ): Promise<LedgerRow | null> {
    const rows = (await tx.rows(
      `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, provider_reference, note)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (provider_reference) WHERE kind = 'purchase' DO NOTHING
       RETURNING id, kind, delta_cents, currency, occurred_at, provider_reference`,
      [
        entry.organizationId,
        entry.kind,
        entry.cents,
        this.config.credit.currency,
        entry.occurredAt,
        entry.providerReference ?? null,
        entry.note ?? null,
      ],
    )) as LedgerRow[];
    if (rows.length === 0) return null;
    await this.moveBalance(tx, entry.organizationId, entry.cents);
    return rows[0];
  }

  /**
   * The balance row is locked by this update, so the balance before and after it are exact even
   * under concurrent charges: a threshold crossing is decided (and its alert written) once.
   */
  private async moveBalance(tx: Sql, organizationId: string, delta: number): Promise<void> {
    await this.hot.add(tx, balanceKey(organizationId), [delta], async ([sum]) => {
      const [account] = (await tx.rows(
        `INSERT INTO credit_accounts (organization_id, balance_cents, currency) VALUES ($1, $2, $3)
       ON CONFLICT (organization_id) DO UPDATE SET balance_cents = credit_accounts.balance_cents + EXCLUDED.balance_cents
       RETURNING balance_cents, low_balance_cents`,
        [organizationId, sum, this.config.credit.currency],
      )) as { balance_cents: number; low_balance_cents: number | null }[];
      const after = Number(account.balance_cents);
      const threshold = account.low_balance_cents === null ? null : Number(account.low_balance_cents);
      for (const type of balanceCrossings(after - sum, after, threshold)) {
        const data = { credit_cents: after, low_balance_cents: threshold, currency: this.config.credit.currency };
        await this.events.emit(tx, { organizationId, type, data });
      }
    });
  }
}

/** `credit.low` when the balance falls from at or above the threshold to below it; `credit.exhausted` when it falls to zero or less. */
export function balanceCrossings(before: number, after: number, threshold: number | null): ('credit.low' | 'credit.exhausted')[] {
  const crossings: ('credit.low' | 'credit.exhausted')[] = [];
  if (threshold !== null && before >= threshold && after < threshold) crossings.push('credit.low');
  if (before > 0 && after <= 0) crossings.push('credit.exhausted');
  return crossings;
}
