import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { NotRateLimited } from '../../common/rate-limiting/not-rate-limited.decorator';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../../common/auth/public.decorator';
import { RETRY_AFTER_SECONDS } from '../../common/errors/service-unavailable';
import { QueueRegistry } from '../../queue/queue.registry';
import { DatabaseClient } from '../../database/database.client';

/** A readiness probe answers in this long, whatever the state of the dependencies. */
const CHECK_TIMEOUT_MS = 2000;

/** `{name: {status: 'up'}}`, or `{name: {status: 'down', error}}` when `probe` fails or does not settle in time; never throws. */
async function indicator(name: string, probe: () => Promise<unknown>): Promise<HealthIndicatorResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), deadline]);
    return { [name]: { status: 'up' } };
  } catch (error) {
    return { [name]: { status: 'down', error: error instanceof Error ? error.message : String(error) } };
  } finally {
    clearTimeout(timer);
  }
}

@ApiExcludeController()
@Public()
@NotRateLimited()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseClient,
    private readonly queues: QueueRegistry,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** 200 when Postgres and Redis answer; else 503 naming each failed component and its error. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) response: Response): Promise<HealthCheckResult | { detail: string }> {
    try {
      return await this.health.check([
        () => indicator('postgres', () => this.database.ping()),
        () => indicator('redis', () => this.queues.redis.ping()),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      const failed = Object.entries(result.error ?? {}).map(([name, state]) => `${name} (${String(state?.error)})`);
      response.status(503).setHeader('Retry-After', String(RETRY_AFTER_SECONDS.postgres));
      return { detail: `Not ready: ${failed.join(', ')} unavailable.`, ...result };
    }
  }
}
