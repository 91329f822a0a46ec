import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './database/data-source';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { AuthModule } from './modules/auth/auth.module';
import { HealthModule } from './modules/health/health.module';
import { LanguagesModule } from './modules/languages/languages.module';
import { UsersModule } from './modules/users/users.module';
import { BillingModule } from './modules/billing/billing.module';
import { StripeEventsModule } from './modules/billing/stripe-events.module';
import { InvitesModule } from './modules/invites/invites.module';
import { UsageModule } from './modules/usage/usage.module';
import { LiveKitModule } from './modules/livekit/livekit.module';
import { RoomsModule } from './modules/rooms/rooms.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { LiveKitEventsModule } from './modules/metering/livekit-events.module';
import { MembersModule } from './modules/members/members.module';
import { TranslationStatsModule } from './modules/translation-stats/translation-stats.module';
import { TranscriptsModule } from './modules/transcripts/transcripts.module';
import { DatabaseModule } from './database/database.module';
import { QueueModule } from './queue/queue.module';
import { IdempotencyModule } from './modules/idempotency/idempotency.module';
import { CustomerEventsModule } from './modules/customer-webhooks/customer-events.module';
import { CustomerWebhooksModule } from './modules/customer-webhooks/customer-webhooks.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { GlossariesModule } from './modules/glossaries/glossaries.module';
import { AuditModule } from './modules/audit/audit.module';
import { EventsModule } from './modules/events/events.module';
import { ConsoleModule } from './modules/console/console.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DiscoveryModule, // the controllers' routes, for the 405 of the exception filter (app.factory.ts)
        // Before the queue workers: stopped after them, so a job finishing at shutdown still has the pool.
        DatabaseModule.forRoot(config, config.timeouts),
        TypeOrmModule.forRoot(dataSourceOptions(config, config.timeouts)),
        QueueModule,
        MetricsModule,
        IdempotencyModule,
        CustomerEventsModule,
        AuditModule,
        AuthModule,
        HealthModule,
        ApiKeysModule,
        UsersModule,
        MembersModule,
        LanguagesModule,
        LiveKitModule,
        RoomsModule,
        InvitesModule,
        WebhooksModule,
        LiveKitEventsModule,
        BillingModule,
        StripeEventsModule,
        UsageModule,
        TranslationStatsModule,
        TranscriptsModule,
        CustomerWebhooksModule,
        EventsModule,
        GlossariesModule,
        // Not imported when off: /console is then an unknown path (404) like any other.
        ...(config.http.consoleEnabled ? [ConsoleModule] : []),
      ],
    };
  }
}
