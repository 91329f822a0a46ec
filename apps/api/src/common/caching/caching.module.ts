import { Module } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import { OrganizationVersions } from './organization-versions.repository';
import { VersionedCache } from './versioned-cache';

/** Billing history pages as JSON text, by organization and query (`BillingHistoryService`). */
export const HISTORY_PAGES = Symbol('HISTORY_PAGES');
/** Usage overviews as JSON text, by organization and window (`UsageService`). */
export const USAGE_OVERVIEWS = Symbol('USAGE_OVERVIEWS');
/** The change counter of billing history pages (`BillingHistoryService`'s cache). */
export const HISTORY_VERSIONS = Symbol('HISTORY_VERSIONS');
/** The change counter of usage overviews (`UsageService`'s cache). */
export const USAGE_VERSIONS = Symbol('USAGE_VERSIONS');

/** Dashboards read the same pages and windows again and again; the data changes far less often. */
const CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The versioned caches (one per kind of answer, `CACHE_BYTES` each) and the versions they are
 * checked against: one reader per table, each batching the reads of the requests that arrive
 * together (one statement in flight per table in the process).
 */
@Module({
  providers: [
    { provide: HISTORY_PAGES, useFactory: () => new VersionedCache(CACHE_BYTES) },
    { provide: USAGE_OVERVIEWS, useFactory: () => new VersionedCache(CACHE_BYTES) },
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
  exports: [HISTORY_PAGES, USAGE_OVERVIEWS, HISTORY_VERSIONS, USAGE_VERSIONS],
})
export class CachingModule {}
