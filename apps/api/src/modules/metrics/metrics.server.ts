import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ApiError } from '../../common/errors/api-error';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import { MetricsTokenAuthenticator } from './metrics-token.authenticator';

/**
 * `GET /metrics` on a port of its own: the API's METRICS_PORT on every interface without
 * authentication, for a scraper on the private network; the worker's WORKER_METRICS_PORT, its only
 * endpoint, on HOST and behind METRICS_TOKEN when set, as the API port (`metrics.portLikeApi`).
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server: Server | null = null;

  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly token: MetricsTokenAuthenticator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The port it listens on, or null when off. */
  get port(): number | null {
    const address = this.server?.address() as AddressInfo | null | undefined;
    return address ? address.port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { port, portLikeApi } = this.config.metrics;
    if (port === null) return;
    const refuse = (res: ServerResponse, error: ApiError): void => {
      res.writeHead(error.status, { ...error.headers, 'content-type': 'application/json' }).end(JSON.stringify({ detail: error.message }));
    };
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        refuse(res, ApiError.notFound('Not found: only GET /metrics here.'));
        return;
      }
      (portLikeApi ? this.token.check(req.headers.authorization, req.socket.remoteAddress) : Promise.resolve({}))
        .then(async (headers) => {
          const text = await this.metrics.registry.metrics();
          res.writeHead(200, { ...headers, 'content-type': this.metrics.registry.contentType }).end(text);
        })
        .catch((error: Error) => {
          if (error instanceof ApiError) return refuse(res, error);
          this.logger.error(`Metrics failed: ${error.message}`);
          res.writeHead(500).end();
        });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, portLikeApi ? this.config.host : '0.0.0.0', () => resolve());
    });
    this.server = server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
