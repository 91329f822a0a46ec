import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiErrors } from '../../common/openapi/error-responses';
import { BurnView } from './burn.dto';
import { BurnService } from './burn.service';

@ApiTags('billing')
@ApiBearerAuth()
@Controller('v1/billing')
export class BurnController {
  constructor(private readonly burn: BurnService) {}

  @Get('burn')
  @Requires('billing:read')
  @ApiOperation({
    operationId: 'getBurn',
    summary: 'Credit burn now',
    description:
      "What the organization's open connections cost per minute together (each at the rate of its join) and when the balance reaches zero at that rate; `runs_out_at` is null when nothing is open.",
  })
  @ApiOkResponse({ type: BurnView })
  @ApiErrors(401)
  view(@CurrentActor() actor: Actor) {
    return this.burn.view(actor);
  }
}
