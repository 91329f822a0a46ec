import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { CheckoutDto, CheckoutView } from './billing.dto';
import { StripeGateway } from './stripe.gateway';
import { DatabaseClient } from '../../database/database.client';
import { AuditLogService } from '../audit/audit-log.service';

/** Appends `session_id={CHECKOUT_SESSION_ID}` (Stripe fills in the placeholder; it must stay unencoded). */
export function withSessionId(url: string): string {
  const [base, fragment] = url.split('#', 2);
  const joined = `${base}${base.includes('?') ? '&' : '?'}session_id={CHECKOUT_SESSION_ID}`;
  return fragment === undefined ? joined : `${joined}#${fragment}`;
}

/** `POST /v1/billing/checkout`: a Stripe Checkout session for a top-up within the configured bounds. */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly stripe: StripeGateway,
    private readonly database: DatabaseClient,
    private readonly audit: AuditLogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(actor: Actor, dto: CheckoutDto): Promise<CheckoutView> {
    const { minTopupCents, maxTopupCents, currency } = this.config.credit;
    if (dto.amount_cents < minTopupCents || dto.amount_cents > maxTopupCents) {
      throw new ApiError(
        400,
        `amount_cents must be between ${minTopupCents} and ${maxTopupCents} (see GET /v1/billing/credit), got ${dto.amount_cents}.`,
      );
    }
    const successUrl = dto.success_url ?? this.config.checkout.successUrl ?? `http://127.0.0.1:${this.config.port}/checkout/success`;
    const cancelUrl = dto.cancel_url ?? this.config.checkout.cancelUrl ?? `http://127.0.0.1:${this.config.port}/checkout/cancel`;
    const session = await this.stripe.createCheckout({
      organizationId: actor.organizationId,
      amountCents: dto.amount_cents,
      currency,
      successUrl: withSessionId(successUrl),
      cancelUrl,
    });
    // Nothing of ours changes but the audit log: one statement once Stripe made the session.
    await this.database.oneStatement((tx) =>
      this.audit.record(tx, actor, {
        action: 'checkout.created',
        target: { type: 'checkout_session', id: session.id },
        details: { amount_cents: dto.amount_cents, currency },
      }),
    );
    return { checkout_id: session.id, checkout_url: session.url };
  }
}
