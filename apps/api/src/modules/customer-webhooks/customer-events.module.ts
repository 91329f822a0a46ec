import { Global, Module } from '@nestjs/common';
import { CustomerEvents } from './customer-events';

/** The outbox side of customer webhooks, for every module whose changes customers hear about. */
@Global()
@Module({ providers: [CustomerEvents], exports: [CustomerEvents] })
export class CustomerEventsModule {}
