import { SetMetadata } from '@nestjs/common';

export const NOT_RATE_LIMITED = 'rate-limits:exempt';

/**
 * A public route outside the per-address budget: signed webhooks (LiveKit and Stripe send bursts from
 * few addresses, and a refused delivery is only retried later), health probes, and the metrics
 * endpoint (its token has a budget of its own).
 */
export const NotRateLimited = () => SetMetadata(NOT_RATE_LIMITED, true);
