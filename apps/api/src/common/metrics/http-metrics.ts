import type { Request, Response } from 'express';
import type { MetricsRegistry } from './metrics.registry';

/** The counter and histogram series of one route, method and status, looked up once and kept. */
interface RouteSeries {
  requests: { inc: () => void };
  duration: { observe: (seconds: number) => void };
}

/** Route templates × methods × statuses is small and bounded; the cap only guards against surprises. */
const MAX_SERIES = 2_000;

/**
 * Counts and times every answer by its route template (`/v1/rooms/:room_id`), so ids never become labels.
 * Called once the answer is sent, with the time it took.
 */
export function httpMetrics(metrics: MetricsRegistry): (request: Request, response: Response, ms: number) => void {
  // prom-client hashes a label set on every call: the series of a route are resolved once instead.
  const series = new Map<string, RouteSeries>();
  const seriesOf = (route: string, method: string, status: string): RouteSeries => {
    const key = `${route} ${method} ${status}`;
    let found = series.get(key);
    if (!found) {
      found = {
        requests: metrics.httpRequests.labels(route, method, status),
        duration: metrics.httpDuration.labels(route, method, status),
      };
      if (series.size < MAX_SERIES) series.set(key, found);
    }
    return found;
  };
  return (request, response, ms) => {
    const route = (request.route as { path?: unknown } | undefined)?.path;
    const answered = seriesOf(
      typeof route === 'string' ? `${request.baseUrl}${route}` : 'unmatched',
      request.method,
      String(response.statusCode),
    );
    answered.requests.inc();
    answered.duration.observe(ms / 1000);
  };
}
