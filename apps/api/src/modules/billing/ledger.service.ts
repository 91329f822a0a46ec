import { balanceCrossings } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import { DatabaseClient } from '../../database/database.client';
import { balanceKey, LEDGER_CHARGES_KEY } from '../../database/hot-row-keys';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import type { AppConfig } from '../../config/app-config';
import { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { Tx } from '../../database/sql';
import { AuditLogService } from '../audit/audit-log.service';
import { CreditAccountsRepository, type ChargeLine, type CreditKind, type LedgerRow } from './credit-accounts.repository';

export type { CreditKind, LedgerRow } from './credit-accounts.repository';

/** Appends ledger rows and moves the balance in the same transaction. */
@Injectable()
export class LedgerService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabaseClient,
    private readonly hot: HotRowWritesService,
    private readonly events: CustomerEventsPublisher,
    private readonly accounts: CreditAccountsRepository,
    private readonly audit: AuditLogService,
  ) {}

  async charge(
    tx: Tx,
    entry: { organizationId: string; roomId: string; connectionId: number; cents: number; occurredAt: Date },
  ): Promise<void> {
    await this.connectionLine(tx, { ...entry, kind: 'charge', cents: -entry.cents });
  }

  /**
   * A connection's charge changed after it entered the ledger (a later event moved its end): a new
   * line of the difference (`cents` what the charge moved by; negative gives back), never an edit.
   */
  async correctCharge(
    tx: Tx,
    entry: { organizationId: string; roomId: string; connectionId: number; cents: number; occurredAt: Date },
  ): Promise<void> {
    await this.connectionLine(tx, { ...entry, kind: 'charge_correction', cents: -entry.cents });
  }

  private async connectionLine(tx: Tx, line: ChargeLine): Promise<void> {
    if (line.cents === 0) return;
    await this.hot.append<ChargeLine>(tx, LEDGER_CHARGES_KEY, line, (rows) =>
      this.accounts.insertCharges(rows, this.config.credit.currency, tx),
    );
    await this.moveBalance(tx, line.organizationId, line.cents);
  }

  /** A credit line; returns null when a purchase with this provider reference was already recorded. */
  async credit(
    tx: Tx,
    entry: {
      organizationId: string;
      kind: CreditKind;
      cents: number;
      occurredAt: Date;
      providerReference?: string | null;
      note?: string | null;
    },
  ): Promise<LedgerRow | null> {
    const line = await this.accounts.insertCredit({ ...entry, currency: this.config.credit.currency }, tx);
    if (!line) return null;
    await this.moveBalance(tx, entry.organizationId, entry.cents);
    return line;
  }

  /** An operator's grant (`cents` may be negative), now, in a transaction of its own with its audit event. */
  async grant(entry: { organizationId: string; cents: number; note?: string | null }): Promise<LedgerRow> {
    const line = await this.database.transaction(async (tx) => {
      const credited = await this.credit(tx, {
        organizationId: entry.organizationId,
        kind: 'grant',
        cents: entry.cents,
        occurredAt: new Date(),
        note: entry.note,
      });
      if (!credited) throw new Error('The grant was not recorded.');
      await this.audit.record(
        tx,
        { type: 'operator', organizationId: entry.organizationId },
        {
          action: 'credit.granted',
          target: { type: 'organization', id: entry.organizationId },
          details: { delta_cents: entry.cents, currency: this.config.credit.currency, note: entry.note ?? null },
        },
      );
      return credited;
    });
    return line;
  }

  /**
   * The balance row is locked by this update, so the balance before and after it are exact even
   * under concurrent charges: a threshold crossing is decided (and its alert written) once.
   */
  private async moveBalance(tx: Tx, organizationId: string, delta: number): Promise<void> {
    await this.hot.add(tx, balanceKey(organizationId), [delta], async ([sum]) => {
      const { currency } = this.config.credit;
      const move = await this.accounts.moveBalance(organizationId, sum, currency, tx);
      for (const type of balanceCrossings(move.before, move.after, move.lowBalanceCents)) {
        const data = { credit_cents: move.after, low_balance_cents: move.lowBalanceCents, currency };
        await this.events.emit(tx, { organizationId, type, data });
      }
    });
  }
}
