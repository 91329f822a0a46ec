import { Inject, Injectable, Logger } from '@nestjs/common';
import Stripe from 'stripe';
import { ApiError } from '../../common/errors/api-error';
import { ServiceUnavailableError } from '../../common/errors/service-unavailable';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

export interface CheckoutRequest {
  organizationId: string;
  amountCents: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
}

/** Everything the API asks of Stripe, through the official SDK. */
@Injectable()
export class StripeGateway {
  private readonly logger = new Logger(StripeGateway.name);
  private readonly client: Stripe | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const { secretKey, apiUrl } = config.stripe;
    if (!secretKey) {
      this.client = null;
      return;
    }
    const endpoint = apiUrl ? new URL(apiUrl) : null;
    this.client = new Stripe(secretKey, {
      // One retry (same idempotency key) rides out a blip; the wait is bounded by twice the timeout.
      maxNetworkRetries: 1,
      timeout: config.timeouts.stripeMs,
      ...(endpoint
        ? {
            host: endpoint.hostname,
            port: endpoint.port || (endpoint.protocol === 'https:' ? 443 : 80),
            protocol: endpoint.protocol === 'https:' ? 'https' : 'http',
          }
        : {}),
    });
  }

  async createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string }> {
    const client = this.requireClient();
    try {
      const session = await client.checkout.sessions.create({
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: request.currency,
              unit_amount: request.amountCents,
              product_data: { name: 'Prepaid translation credit' },
            },
          },
        ],
        client_reference_id: request.organizationId,
        metadata: { organization_id: request.organizationId, amount_cents: String(request.amountCents) },
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      });
      if (!session.url) throw new Error('Stripe returned a session without a URL');
      return { id: session.id, url: session.url };
    } catch (error) {
      this.logger.error(`Stripe checkout failed: ${error instanceof Error ? error.message : String(error)}`);
      throw new ServiceUnavailableError('stripe', 'The payment provider is unavailable; no checkout was started. Try again shortly.', {
        cause: error,
      });
    }
  }

  /**
   * The payload of a delivery whose signature verifies, as `constructEvent` parsed it (any JSON value:
   * the caller checks that it is an event), or null when the signature does not verify. A signed body
   * that is not JSON is a 400 of its own.
   */
  verifyWebhook(rawBody: Buffer, signature: string | undefined): { payload: unknown } | null {
    const secret = this.config.stripe.webhookSecret;
    if (!secret) throw new ServiceUnavailableError('configuration', 'Stripe webhooks are not configured: set STRIPE_WEBHOOK_SECRET.');
    if (!signature) return null;
    try {
      return { payload: Stripe.webhooks.constructEvent(rawBody, signature, secret) as unknown };
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) return null;
      throw new ApiError(400, 'The signed payload is not a Stripe event: it is not JSON.');
    }
  }

  private requireClient(): Stripe {
    if (!this.client)
      throw new ServiceUnavailableError('configuration', 'Payments are not configured on this deployment: set STRIPE_SECRET_KEY.');
    return this.client;
  }
}
