import { Module } from '@nestjs/common';
import { OrganizationVersionsRepository } from './organization-versions.repository';
import { VersionedCache } from './versioned-cache';

/** Billing history pages as JSON text, by organization and query (`BillingHistoryService`). */
export const HISTORY_PAGES = Symbol('HISTORY_PAGES');
/** Usage overviews as JSON text, by organization and window (`UsageService`). */
export const USAGE_OVERVIEWS = Symbol('USAGE_OVERVIEWS');

/** Dashboards read the same pages and windows again and again; the data changes far less often. */
const CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The versioned caches (one per kind of answer, `CACHE_BYTES` each) and the versions they are
 * checked against (`OrganizationVersionsRepository`: one reader per table, each batching the reads of
 * the requests that arrive together).
 */
@Module({
  providers: [
    { provide: HISTORY_PAGES, useFactory: () => new VersionedCache(CACHE_BYTES) },
    { provide: USAGE_OVERVIEWS, useFactory: () => new VersionedCache(CACHE_BYTES) },
    OrganizationVersionsRepository,
  ],
  exports: [HISTORY_PAGES, USAGE_OVERVIEWS, OrganizationVersionsRepository],
})
export class CachingModule {}
