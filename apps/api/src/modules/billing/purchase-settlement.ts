import { Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { Ledger } from './ledger';

/**
 * Credit for a checkout, only once it is paid: `checkout.session.completed` with payment_status
 * `paid`, or `checkout.session.async_payment_succeeded`. The session id is the purchase's unique
 * provider reference, so both events, or one delivered twice, credit it once.
 */
@Injectable()
export class PurchaseSettlement {
  private readonly logger = new Logger(PurchaseSettlement.name);

  constructor(private readonly ledger: Ledger) {}

  async apply(tx: EntityManager, event: Stripe.Event): Promise<void> {
    const paid =
      (event.type === 'checkout.session.completed' && event.data.object.payment_status === 'paid') ||
      event.type === 'checkout.session.async_payment_succeeded';
    if (!paid) return;
    const session = event.data.object;
    const organizationId = session.client_reference_id ?? session.metadata?.organization_id;
    const [org] = organizationId
      ? ((await tx.query(`SELECT id FROM organizations WHERE id::text = $1`, [organizationId])) as { id: string }[])
      : [];
    if (!org || session.amount_total === null) {
      this.logger.error(`Paid checkout ${session.id} names no known organization or amount; left for an operator.`);
      return;
    }
    await this.ledger.credit(tx, {
      organizationId: org.id,
      kind: 'purchase',
      cents: session.amount_total,
      occurredAt: new Date(event.created * 1000),
      providerReference: session.id,
    });
  }
}
