import { Global, Module, type DynamicModule } from '@nestjs/common';
import { Pool } from 'pg';
import { DatabaseClient } from './database.client';
import { HotRowWritesService } from './hot-row-writes.service';
import { NotificationsClient } from './notifications.client';
import { createPool, type DatabaseConfig, type DatabaseTimeouts } from './pool';

/**
 * PostgreSQL at run time: node-postgres's pool, made and owned here (`DatabaseClient` ends it when the
 * application stops), and the clients that use it. Import it before the modules whose shutdown still
 * runs statements (the queue workers): Nest stops global modules in the reverse order of import.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: DatabaseConfig, timeouts?: DatabaseTimeouts): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: Pool, useFactory: () => createPool(config, timeouts) },
        DatabaseClient,
        HotRowWritesService,
        NotificationsClient,
      ],
      exports: [DatabaseClient, HotRowWritesService, NotificationsClient],
    };
  }
}
