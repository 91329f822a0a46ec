import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';
import { IdempotencyRepository } from './idempotency.repository';

@Global()
@Module({
  providers: [IdempotencyStore, IdempotencyRepository, IdempotencyInterceptor],
  exports: [IdempotencyStore, IdempotencyInterceptor],
})
export class IdempotencyModule {}
