import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { requestLogLine, tagRequest } from '../logging/request-logging';
import { securityHeaders } from './browser-access';
import type { MetricsRegistry } from '../metrics/metrics.registry';
import { httpMetrics } from '../metrics/http-metrics';

/**
 * What every request gets before routing, in one Express layer (each layer is a pass of the router):
 * its id, helmet's security headers, and one listener for its end that records the HTTP metrics and
 * writes its log line.
 */
export function requestEnvelope(logger: Logger, metrics: MetricsRegistry): RequestHandler {
  const headers = securityHeaders();
  const record = httpMetrics(metrics);
  const logLine = requestLogLine(logger);
  return (request, response, next) => {
    const started = performance.now(); // a double: no BigInt allocated per request
    tagRequest(request, response);
    for (const [name, value] of headers) response.setHeader(name, value);
    response.once('finish', () => {
      const ms = performance.now() - started;
      record(request, response, ms);
      logLine?.(request, response, ms);
    });
    next();
  };
}
