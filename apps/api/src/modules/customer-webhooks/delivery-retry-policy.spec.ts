import { maxAttempts } from './customer-events.publisher';
import { attemptOutcome, earliestRetries } from './delivery-retry-policy';
import type { DeliveryOutcome } from './webhook-deliveries.repository';
import type { AttemptResult } from './webhook-sender';

/** What one attempt's result decides for its delivery, and when each endpoint's job comes back. */
describe('delivery retry policy', () => {
  const schedule = [5_000, 30_000, 120_000];
  const delivered: AttemptResult = { ok: true, statusCode: 204 };
  const answered500: AttemptResult = { ok: false, statusCode: 500, error: 'The endpoint answered 500.' };
  const timedOut: AttemptResult = { ok: false, statusCode: null, error: 'No answer within 10 s.' };
  const refused: AttemptResult = { ok: false, statusCode: null, error: 'Could not deliver: connect ECONNREFUSED 127.0.0.1:9' };
  /** A delivery as inserted: tried once more than the schedule is long. */
  const delivery = (attemptsBefore: number, max = maxAttempts(schedule)) => ({ id: 'd-1', attempts: attemptsBefore, maxAttempts: max });

  it.each<[string, number, AttemptResult, Omit<DeliveryOutcome, 'id'>]>([
    ['a 2xx on the first attempt', 0, delivered, { attempts: 1, status: 'delivered', statusCode: 204, error: null, waitMs: null }],
    ['a 2xx on the last attempt', 3, delivered, { attempts: 4, status: 'delivered', statusCode: 204, error: null, waitMs: null }],
    [
      'a 500 on the first attempt',
      0,
      answered500,
      { attempts: 1, status: 'pending', statusCode: 500, error: 'The endpoint answered 500.', waitMs: 5_000 },
    ],
    [
      'a timeout on the second attempt',
      1,
      timedOut,
      { attempts: 2, status: 'pending', statusCode: null, error: timedOut.error, waitMs: 30_000 },
    ],
    [
      'a network error on the third attempt',
      2,
      refused,
      { attempts: 3, status: 'pending', statusCode: null, error: refused.error, waitMs: 120_000 },
    ],
    [
      'a 500 on the last attempt',
      3,
      answered500,
      { attempts: 4, status: 'failed', statusCode: 500, error: answered500.error, waitMs: null },
    ],
    [
      'a timeout on the last attempt',
      3,
      timedOut,
      { attempts: 4, status: 'failed', statusCode: null, error: timedOut.error, waitMs: null },
    ],
  ])('decides %s', (_, attemptsBefore, result, outcome) => {
    expect(attemptOutcome(delivery(attemptsBefore), result, schedule)).toEqual({ id: 'd-1', ...outcome });
  });

  it('waits each wait of the schedule in turn, then fails after one attempt more than the schedule is long', () => {
    const waits: (number | null)[] = [];
    const statuses: string[] = [];
    // Bounded, so a policy that never gives up fails here instead of looping.
    for (let attempts = 0; attempts < 10 && statuses.at(-1) !== 'failed'; attempts++) {
      const outcome = attemptOutcome(delivery(attempts), answered500, schedule);
      waits.push(outcome.waitMs);
      statuses.push(outcome.status);
    }
    expect(waits).toEqual([5_000, 30_000, 120_000, null]);
    expect(statuses).toEqual(['pending', 'pending', 'pending', 'failed']);
  });

  it.each<[string, number, number, number[], number | null]>([
    ['the attempt is past the end of the schedule (after a manual retry): its last wait', 5, 8, schedule, 120_000],
    ['the schedule is empty: none', 0, 2, [], 0],
    ['a manually retried failed delivery fails again: no retry', 4, 5, schedule, null],
  ])('decides the wait after a failed attempt when %s', (_, attemptsBefore, max, retryScheduleMs, waitMs) => {
    expect(attemptOutcome(delivery(attemptsBefore, max), answered500, retryScheduleMs).waitMs).toBe(waitMs);
  });

  it("brings each endpoint's job back at its earliest retry, and none for an endpoint with nothing to retry", () => {
    const outcome = (endpointId: string, status: DeliveryOutcome['status'], waitMs: number | null) => ({
      endpointId,
      id: `${endpointId}-${waitMs}`,
      attempts: 1,
      status,
      statusCode: null,
      error: null,
      waitMs,
    });
    const retries = earliestRetries([
      outcome('e-1', 'pending', 5_000),
      outcome('e-1', 'pending', 30_000),
      outcome('e-1', 'delivered', null),
      outcome('e-2', 'failed', null),
      outcome('e-3', 'pending', 0),
      outcome('e-3', 'pending', 120_000),
    ]);
    expect([...retries]).toEqual([
      ['e-1', 5_000],
      ['e-3', 0],
    ]);
  });
});
