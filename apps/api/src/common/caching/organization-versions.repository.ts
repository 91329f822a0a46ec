import type { Sql } from '../../database/sql';
import { prepared, sql } from '../../database/typed-sql';
import { batchedRows } from '../batching/batched-rows';
import type { BatchedLoader } from '../batching/batched-loader';
import type { IHistoryVersionsQuery, IHistoryVersionsResult, IUsageVersionsQuery } from './organization-versions.repository.types';

/** The tables that count changes per organization for a VersionedCache: history pages and usage overviews. */
export type VersionTable = 'history_versions' | 'usage_versions';

const HISTORY_VERSIONS = sql<IHistoryVersionsQuery>`SELECT organization_id, version::text AS "version!"
  FROM history_versions WHERE organization_id = ANY($organizationIds!::uuid[])`;

const USAGE_VERSIONS = sql<IUsageVersionsQuery>`SELECT organization_id, version::text AS "version!"
  FROM usage_versions WHERE organization_id = ANY($organizationIds!::uuid[])`;

const VERSIONS = {
  history_versions: prepared('history_versions_by_organization', HISTORY_VERSIONS),
  usage_versions: prepared('usage_versions_by_organization', USAGE_VERSIONS),
};

/**
 * An organization's change counter ('0' before its first change), read before a cached answer is
 * served. The reads of requests arriving together share one statement; each still starts after its
 * request arrived, so a hit is never older than a change committed before the request.
 */
export class OrganizationVersions {
  private readonly versions: BatchedLoader<string, IHistoryVersionsResult>;

  constructor(sql: Sql, table: VersionTable) {
    this.versions = batchedRows(sql, VERSIONS[table], (row) => row.organization_id);
  }

  async read(organizationId: string): Promise<string> {
    return (await this.versions.load(organizationId))?.version ?? '0';
  }
}
