import { Global, Module } from '@nestjs/common';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyStore } from './idempotency.store';
import { IdempotencyRepository } from './idempotency.repository';

@Global()
@Module({
  providers: [IdempotencyStore, IdempotencyRepository, IdempotencyGuard],
  exports: [IdempotencyStore, IdempotencyGuard],
})
export class IdempotencyModule {}
