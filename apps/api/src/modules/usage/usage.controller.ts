import { Controller, Get, Header, Query } from '@nestjs/common';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { ApiErrors } from '../../common/openapi/error-responses';
import { UsageOverviewQueryDto, UsageOverviewView } from './usage.dto';
import { UsageService } from './usage.service';

@ApiTags('usage')
@ApiBearerAuth()
@Controller('v1/usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get('overview')
  @Requires('billing:read')
  @ApiOperation({
    operationId: 'getUsageOverview',
    summary: 'Usage over time, for charts',
    description:
      'Minutes, rooms and cost in buckets of `granularity` over the window [`starts_after`, `ends_before`), at most 90 days, both bounds with a UTC offset. Buckets start at local midnight (or hour, week, month) of `timezone`, an IANA zone name; every bucket of the window is listed, oldest first.',
  })
  @ApiOkResponse({ type: UsageOverviewView, description: 'Every bucket of the window, oldest first; summary is the sum of the buckets' })
  @ApiErrors(422, 401)
  @Header('Content-Type', 'application/json; charset=utf-8')
  overview(@CurrentActor() actor: Actor, @Query() query: UsageOverviewQueryDto): Promise<string> {
    return this.usage.overviewJson(actor, query);
  }
}
