import { Global, Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditLogService } from './audit-log.service';

/** The audit log, for every module whose changes it records (and the operator CLI). */
@Global()
@Module({
  controllers: [AuditEventsController],
  providers: [AuditEventsRepository, AuditLogService],
  exports: [AuditLogService],
})
export class AuditModule {}
