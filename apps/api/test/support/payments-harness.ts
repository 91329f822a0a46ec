import type Stripe from 'stripe';
import type { TestOrganization } from './factories';
import { startRoomsHarness, type RoomsHarness } from './rooms-harness';
import { startStripeDouble, type StripeDouble } from './stripe-double';
import { completeSession, signStripeEvent, TEST_WEBHOOK_SECRET } from './stripe-webhooks';

export interface FullHarness extends RoomsHarness {
  stripe: StripeDouble;
}

/** The app wired to both doubles: LiveKit and Stripe. */
export async function startFullHarness(env: Record<string, string> = {}): Promise<FullHarness> {
  const stripe = await startStripeDouble();
  const h = await startRoomsHarness({
    STRIPE_SECRET_KEY: 'sk_test_doubles',
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
    ...env,
  });
  return {
    ...h,
    stripe,
    close: async () => {
      await h.close();
      await stripe.close();
    },
  };
}

/** Starts a checkout through the API and completes it in the double; returns the event Stripe would send. */
export async function checkoutAndPay(
  h: FullHarness,
  org: TestOrganization,
  cents: number,
  paid = true,
): Promise<Stripe.CheckoutSessionCompletedEvent> {
  const res = await h.t.http().post('/v1/billing/checkout').set(org.auth).send({ amount_cents: cents });
  if (res.status !== 201) throw new Error(`checkout failed: ${res.status} ${JSON.stringify(res.body)}`);
  return completeSession(h.stripe, res.body.checkout_id as string, { paid });
}

export function stripeWebhook(h: RoomsHarness, event: { id: string; object: 'event' }) {
  const signed = signStripeEvent(event);
  return h.t.http().post('/v1/webhooks/stripe').set(signed.headers).send(signed.body);
}
