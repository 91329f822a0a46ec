import { Injectable, Logger } from '@nestjs/common';
import { asJsonObject } from '../../common/json/json-shape';
import { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { Tx } from '../../database/sql';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { LedgerService } from './ledger.service';
import { AuditLogService } from '../audit/audit-log.service';

/** The event types that credit a checkout (the first only when its payment_status is `paid`). */
const CREDITING_TYPES: ReadonlySet<string> = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
/** Stripe's ids are at most 255 characters; a longer one could not be a purchase's provider reference. */
const MAX_ID_LENGTH = 255;
/** The latest `created` a Date (and PostgreSQL) can hold, in epoch seconds. */
const MAX_CREATED_SECONDS = 8.64e12;

/**
 * Credit for a checkout, only once it is paid: `checkout.session.completed` with payment_status
 * `paid`, or `checkout.session.async_payment_succeeded`. The session id is the purchase's unique
 * provider reference, so both events, or one delivered twice, credit it once.
 *
 * The payload is whatever a signed delivery carried. An event that can never be applied (no
 * `data.object`, or a crediting event whose session lacks what a credit needs) is logged and
 * returns, so it is marked processed like any event we do not act on; only a failure such as the
 * database being unreachable throws, and the event is tried again.
 */
@Injectable()
export class PurchaseSettlementService {
  private readonly logger = new Logger(PurchaseSettlementService.name);

  constructor(
    private readonly ledger: LedgerService,
    private readonly events: CustomerEventsPublisher,
    private readonly organizations: OrganizationsRepository,
    private readonly audit: AuditLogService,
  ) {}

  async apply(tx: Tx, payload: unknown): Promise<void> {
    const event = asJsonObject(payload);
    const eventId = String(event?.id);
    const type = event?.type;
    const session = asJsonObject(asJsonObject(event?.data)?.object);
    if (!session) {
      this.logger.warn(`Stripe event ${eventId} (${String(type)}) has no data.object; ignored.`);
      return;
    }
    if (typeof type !== 'string' || !CREDITING_TYPES.has(type)) return;
    if (type === 'checkout.session.completed' && session.payment_status !== 'paid') return;

    const sessionId = session.id;
    const amount = session.amount_total;
    const created = event?.created;
    if (
      typeof sessionId !== 'string' ||
      sessionId.length === 0 ||
      sessionId.length > MAX_ID_LENGTH ||
      !Number.isSafeInteger(amount) ||
      (amount as number) <= 0 ||
      !Number.isSafeInteger(created) ||
      (created as number) < 0 ||
      (created as number) > MAX_CREATED_SECONDS
    ) {
      this.logger.error(
        `Stripe event ${eventId} (${type}) carries no usable session id, amount_total or created; nothing credited, left for an operator.`,
      );
      return;
    }
    const reference = session.client_reference_id ?? asJsonObject(session.metadata)?.organization_id;
    const organizationId = typeof reference === 'string' ? await this.organizations.idByReference(reference, tx) : null;
    if (!organizationId) {
      this.logger.error(`Paid checkout ${sessionId} (event ${eventId}) names no known organization; left for an operator.`);
      return;
    }
    const line = await this.ledger.credit(tx, {
      organizationId,
      kind: 'purchase',
      cents: amount as number,
      occurredAt: new Date((created as number) * 1000),
      providerReference: sessionId,
    });
    if (!line) return;
    // The history line, as GET /v1/billing/history shows a credit line.
    const data = {
      kind: line.kind,
      occurred_at: line.occurred_at,
      delta_cents: line.delta_cents,
      currency: line.currency,
      provider_reference: line.provider_reference,
    };
    await this.events.emit(tx, { organizationId, type: 'credit.purchased', data });
    await this.audit.record(
      tx,
      { type: 'system', organizationId },
      {
        action: 'credit.purchased',
        target: { type: 'checkout_session', id: sessionId },
        details: { delta_cents: line.delta_cents, currency: line.currency, stripe_event_id: eventId, stripe_event_type: type },
      },
    );
  }
}
