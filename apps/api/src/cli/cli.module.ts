import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { dataSourceOptions } from '../database/data-source';
import { DatabaseModule } from '../database/database.module';
import { ApiKeysModule } from '../modules/api-keys/api-keys.module';
import { CreditAccountsRepository } from '../modules/billing/credit-accounts.repository';
import { LedgerService } from '../modules/billing/ledger.service';
import { IdempotencyModule } from '../modules/idempotency/idempotency.module';
import { CustomerEventsModule } from '../modules/customer-webhooks/customer-events.module';
import { OrganizationsModule } from '../modules/organizations/organizations.module';
import { AuditModule } from '../modules/audit/audit.module';

@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config),
        TypeOrmModule.forRoot(dataSourceOptions(config)),
        IdempotencyModule,
        CustomerEventsModule,
        AuditModule,
        ApiKeysModule,
        OrganizationsModule,
      ],
      providers: [LedgerService, CreditAccountsRepository],
    };
  }
}
