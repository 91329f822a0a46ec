import { Controller, Get, Headers, Ip, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/public.decorator';
import { ApiError } from '../../common/errors/api-error';
import { NO_ENDPOINT } from '../../common/errors/route-not-found';
import { ApiErrors } from '../../common/openapi/error-responses';
import { NotRateLimited } from '../../common/rate-limiting/not-rate-limited.decorator';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import { MetricsTokenAuthenticator } from './metrics-token.authenticator';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly token: MetricsTokenAuthenticator,
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
    if (this.token.token === null) throw ApiError.notFound(NO_ENDPOINT);
    for (const [name, value] of Object.entries(await this.token.check(authorization, address))) response.setHeader(name, value);
    const text = await this.metrics.registry.metrics();
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    return text;
  }
}
