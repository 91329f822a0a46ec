import { Global, Module } from '@nestjs/common';
import { Outbox } from './outbox';
import { QueueRegistry } from './queue-registry';

@Global()
@Module({ providers: [QueueRegistry, Outbox], exports: [QueueRegistry, Outbox] })
export class QueueModule {}
