import { Controller, Get, Headers, Inject, Ip, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { timingSafeEqual, createHash } from 'node:crypto';
import { Public } from '../../common/auth/public.decorator';
import { ApiError } from '../../common/errors/api-error';
import { NO_ENDPOINT } from '../../common/errors/route-not-found';
import { ApiErrors } from '../../common/openapi/error-responses';
import { NotRateLimited } from '../../common/rate-limiting/not-rate-limited.decorator';
import { RateLimits } from '../../common/rate-limiting/rate-limits';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Metrics } from '../../common/metrics/metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();
/** The metrics token's key in the per-credential budget (API keys are `key:<id>`, sessions `user:<id>`). */
const METRICS_CREDENTIAL = 'metrics-token';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    private readonly limits: RateLimits,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Not in the address budget of public routes: the token is checked here, and only the token's own
  // budget limits a right one (a scraper behind a shared address is never refused for its neighbours).
  @Public()
  @NotRateLimited()
  @Get()
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Prometheus metrics',
    description:
      "The process's metrics in the Prometheus text format, for operators: only when the deployment sets METRICS_TOKEN, sent as " +
      '`Authorization: Bearer <METRICS_TOKEN>` (otherwise 404). METRICS_PORT serves the same without authentication on a port of its own.',
  })
  @ApiOkResponse({ description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiErrors(401, 404)
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Ip() address: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const token = this.config.metrics.token;
    if (token === null) throw ApiError.notFound(NO_ENDPOINT);
    // A wrong token counts against the address's failed-authentication budget, as a wrong API key does.
    const sent = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (sent === undefined || !timingSafeEqual(digest(sent), digest(token))) {
      throw await this.limits.failedAuthentication(address ?? 'unknown', ApiError.unauthorized('Missing or wrong metrics token.'));
    }
    for (const [name, value] of Object.entries(await this.limits.spend('credential', METRICS_CREDENTIAL))) response.setHeader(name, value);
    const text = await this.metrics.registry.metrics();
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    return text;
  }
}
