import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, type Actor } from '../../common/auth/actor';
import { Requires } from '../../common/auth/requires.decorator';
import { ApiErrors } from '../../common/openapi/error-responses';
import { ApiPageResponse } from '../../common/pagination/page.schema';
import { AuditEventsQueryDto, AuditEventView } from './audit-event.dto';
import { AuditLogService } from './audit-log.service';

@ApiTags('audit')
@ApiBearerAuth()
@Controller('v1/audit-events')
export class AuditEventsController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @Requires('audit:read')
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'List audit events',
    description:
      "One page of the organization's audit log, newest first: every change made through the API, the operator CLI or Stripe, and every refused request (403). `since` is inclusive, `until` exclusive.",
  })
  @ApiPageResponse(AuditEventView, 'Audit events, newest first')
  @ApiErrors(422, 401)
  list(@CurrentActor() actor: Actor, @Query() query: AuditEventsQueryDto) {
    return this.audit.page(actor, query);
  }
}
