import type { Sql } from '../../database/sql';
import { batchedRows } from '../batching/batched-rows';
import type { BatchedLoader } from '../batching/batched-loader';

/** The tables that count changes per organization for a VersionedCache: history pages and usage overviews. */
export type VersionTable = 'history_versions' | 'usage_versions';

/**
 * An organization's change counter ('0' before its first change), read before a cached answer is
 * served. The reads of requests arriving together share one statement; each still starts after its
 * request arrived, so a hit is never older than a change committed before the request.
 */
export class OrganizationVersions {
  private readonly versions: BatchedLoader<string, { organization_id: string; version: string }>;

  constructor(sql: Sql, table: VersionTable) {
    this.versions = batchedRows(
      sql,
      {
        name: `${table}_by_organization`,
        text: `SELECT organization_id, version::text AS version FROM ${table} WHERE organization_id = ANY($1::uuid[])`,
      },
      (row: { organization_id: string; version: string }) => row.organization_id,
    );
  }

  async read(organizationId: string): Promise<string> {
    return (await this.versions.load(organizationId))?.version ?? '0';
  }
}
