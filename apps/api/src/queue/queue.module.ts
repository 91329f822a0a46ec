import { Global, Module } from '@nestjs/common';
import { DurableQueueService } from './durable-queue.service';
import { OutboxPublisher } from './outbox.publisher';
import { OutboxRepository } from './outbox.repository';
import { PeriodicJobsScheduler } from './periodic-jobs.scheduler';
import { QueueRegistry } from './queue.registry';

@Global()
@Module({
  providers: [QueueRegistry, PeriodicJobsScheduler, DurableQueueService, OutboxRepository, OutboxPublisher],
  exports: [QueueRegistry, PeriodicJobsScheduler, DurableQueueService, OutboxPublisher],
})
export class QueueModule {}
