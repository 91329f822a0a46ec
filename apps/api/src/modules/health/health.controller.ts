import { Controller, Get } from '@nestjs/common';
import { NotRateLimited } from '../../common/rate-limiting/not-rate-limited.decorator';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator, type HealthIndicatorResult } from '@nestjs/terminus';
import { Public } from '../../common/auth/public.decorator';
import { QueueRegistry } from '../../queue/queue-registry';

@ApiExcludeController()
@Public()
@NotRateLimited()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly queues: QueueRegistry,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.database.pingCheck('postgres', { timeout: 1000 }), () => this.redis()]);
  }

  private async redis(): Promise<HealthIndicatorResult> {
    const answer = await Promise.race([
      this.queues.redis.ping(),
      new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 1000)),
    ]).catch((error: Error) => error.message);
    const up = answer === 'PONG';
    const result: HealthIndicatorResult = { redis: up ? { status: 'up' } : { status: 'down', message: answer } };
    if (!up) throw Object.assign(new Error('Redis is down'), { causes: result });
    return result;
  }
}
