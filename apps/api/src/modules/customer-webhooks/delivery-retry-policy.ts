import type { ClaimedDelivery, DeliveryOutcome } from './webhook-deliveries.repository';
import type { AttemptResult } from './webhook-sender';

/**
 * What one attempt decides for its delivery: a 2xx is delivered; anything else is retried after the
 * schedule's wait for this attempt (its last wait once past its end, as after a manual retry), unless
 * it was the delivery's last attempt, which makes it failed.
 */
export function attemptOutcome(
  delivery: Pick<ClaimedDelivery, 'id' | 'attempts' | 'maxAttempts'>,
  result: AttemptResult,
  retryScheduleMs: readonly number[],
): DeliveryOutcome {
  const attempts = delivery.attempts + 1;
  const status = result.ok ? 'delivered' : attempts >= delivery.maxAttempts ? 'failed' : 'pending';
  const waitMs = status === 'pending' ? (retryScheduleMs[Math.min(attempts, retryScheduleMs.length) - 1] ?? 0) : null;
  return { id: delivery.id, attempts, status, statusCode: result.statusCode, error: result.ok ? null : result.error, waitMs };
}

/** Each endpoint's earliest retry among the outcomes: when its job should come back by itself. */
export function earliestRetries(outcomes: readonly (DeliveryOutcome & { endpointId: string })[]): Map<string, number> {
  const earliest = new Map<string, number>();
  for (const o of outcomes) {
    if (o.waitMs !== null) earliest.set(o.endpointId, Math.min(o.waitMs, earliest.get(o.endpointId) ?? Infinity));
  }
  return earliest;
}
