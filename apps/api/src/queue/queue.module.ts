import { Global, Module } from '@nestjs/common';
import { DurableQueue } from './durable-queue';
import { Outbox } from './outbox';
import { OutboxRepository } from './outbox.repository';
import { PeriodicJobs } from './periodic-jobs';
import { QueueRegistry } from './queue-registry';

@Global()
@Module({
  providers: [QueueRegistry, PeriodicJobs, DurableQueue, OutboxRepository, Outbox],
  exports: [QueueRegistry, PeriodicJobs, DurableQueue, Outbox],
})
export class QueueModule {}
