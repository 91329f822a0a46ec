import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import { prepared, sql } from '../../database/typed-sql';
import { batchedRows } from '../batching/batched-rows';
import type { BatchedLoader } from '../batching/batched-loader';
import type { IHistoryVersionsQuery, IHistoryVersionsResult, IUsageVersionsQuery } from './organization-versions.repository.types';

const HISTORY_VERSIONS = sql<IHistoryVersionsQuery>`SELECT organization_id, version::text AS "version!"
  FROM history_versions WHERE organization_id = ANY($organizationIds!::uuid[])`;

const USAGE_VERSIONS = sql<IUsageVersionsQuery>`SELECT organization_id, version::text AS "version!"
  FROM usage_versions WHERE organization_id = ANY($organizationIds!::uuid[])`;

/**
 * An organization's change counters for the VersionedCaches ('0' before its first change), read before
 * a cached answer is served: one for history pages, one for usage overviews (both kept by triggers).
 * The reads of requests arriving together share one statement; each still starts after its request
 * arrived, so a hit is never older than a change committed before the request.
 */
@Injectable()
export class OrganizationVersionsRepository {
  private readonly history: BatchedLoader<string, IHistoryVersionsResult>;
  private readonly usage: BatchedLoader<string, IHistoryVersionsResult>;

  constructor(database: DatabaseClient) {
    this.history = batchedRows(database, prepared('history_versions_by_organization', HISTORY_VERSIONS), (row) => row.organization_id);
    this.usage = batchedRows(database, prepared('usage_versions_by_organization', USAGE_VERSIONS), (row) => row.organization_id);
  }

  /** The organization's billing history version. */
  async historyVersion(organizationId: string): Promise<string> {
    return (await this.history.load(organizationId))?.version ?? '0';
  }

  /** The organization's usage version. */
  async usageVersion(organizationId: string): Promise<string> {
    return (await this.usage.load(organizationId))?.version ?? '0';
  }
}
