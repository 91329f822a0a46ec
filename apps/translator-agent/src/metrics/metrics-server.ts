import { createServer, type Server } from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';

/** The worker's own series and its job processes' snapshots, summed into one exposition. */
export async function workerExposition(own: Registry, jobs: readonly unknown[]): Promise<{ contentType: string; body: string }> {
  const all = AggregatorRegistry.aggregate([await own.getMetricsAsJSON(), ...jobs] as Parameters<typeof AggregatorRegistry.aggregate>[0]);
  return { contentType: all.contentType, body: await all.metrics() };
}

/** `GET /metrics` on its own port (AGENT_METRICS_PORT), without authentication, as the API's METRICS_PORT. */
export function serveMetrics(port: number, render: () => Promise<{ contentType: string; body: string }>): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    render().then(
      ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}
