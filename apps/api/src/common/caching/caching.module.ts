import { Module } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import { OrganizationVersions } from './organization-versions.repository';

/** The change counter of billing history pages (`BillingHistoryService`'s cache). */
export const HISTORY_VERSIONS = Symbol('HISTORY_VERSIONS');
/** The change counter of usage overviews (`UsageService`'s cache). */
export const USAGE_VERSIONS = Symbol('USAGE_VERSIONS');

/**
 * The versions the versioned caches are checked against, one reader per table, each batching the
 * reads of the requests that arrive together (one statement in flight per table in the process).
 */
@Module({
  providers: [
    {
      provide: HISTORY_VERSIONS,
      useFactory: (database: DatabaseClient) => new OrganizationVersions(database, 'history_versions'),
      inject: [DatabaseClient],
    },
    {
      provide: USAGE_VERSIONS,
      useFactory: (database: DatabaseClient) => new OrganizationVersions(database, 'usage_versions'),
      inject: [DatabaseClient],
    },
  ],
  exports: [HISTORY_VERSIONS, USAGE_VERSIONS],
})
export class CachingModule {}
