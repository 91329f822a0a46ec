import { Global, Module } from '@nestjs/common';
import { DurableQueue } from './durable-queue';
import { Outbox } from './outbox';
import { OutboxRepository } from './outbox.repository';
import { QueueRegistry } from './queue-registry';

@Global()
@Module({ providers: [QueueRegistry, DurableQueue, OutboxRepository, Outbox], exports: [QueueRegistry, DurableQueue, Outbox] })
export class QueueModule {}
