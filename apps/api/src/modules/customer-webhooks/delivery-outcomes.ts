import { Injectable } from '@nestjs/common';

export type DeliveryOutcome = 'delivered' | 'retried' | 'failed';

/** Counts of delivery attempts by outcome, read by the metrics. */
@Injectable()
export class DeliveryOutcomes {
  readonly counts: Record<DeliveryOutcome, number> = { delivered: 0, retried: 0, failed: 0 };

  count(outcome: DeliveryOutcome): void {
    this.counts[outcome] += 1;
  }
}
