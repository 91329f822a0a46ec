import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from './metrics';

/** Counts and times every answer by its route template (`/v1/rooms/:room_id`), so ids never become labels. */
export function httpMetrics(metrics: Metrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const end = metrics.httpDuration.startTimer();
    response.on('finish', () => {
      const route = (request.route as { path?: unknown } | undefined)?.path;
      const labels = {
        route: typeof route === 'string' ? `${request.baseUrl}${route}` : 'unmatched',
        method: request.method,
        status: String(response.statusCode),
      };
      metrics.httpRequests.inc(labels);
      end(labels);
    });
    next();
  };
}
