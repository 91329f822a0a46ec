import type { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared-query';
import { BatchedLoader } from '../batching/batched-loader';

/** The tables that count changes per organization for a VersionedCache: history pages and usage overviews. */
export type VersionTable = 'history_versions' | 'usage_versions';

/**
 * An organization's change counter ('0' before its first change), read before a cached answer is
 * served. The reads of requests arriving together share one statement; each still starts after its
 * request arrived, so a hit is never older than a change committed before the request.
 */
export class OrganizationVersions {
  private readonly versions: BatchedLoader<string, string>;

  constructor(dataSource: DataSource, table: VersionTable) {
    this.versions = new BatchedLoader<string, string>(
      async (organizationIds) => {
        const rows = await preparedQuery<{ organization_id: string; version: string }>(
          dataSource,
          `${table}_by_organization`,
          `SELECT organization_id, version::text AS version FROM ${table} WHERE organization_id = ANY($1::uuid[])`,
          [organizationIds],
        );
        return new Map(rows.map((row) => [row.organization_id, row.version]));
      },
      { maxBatch: 100, parallel: 1 },
    );
  }

  async read(organizationId: string): Promise<string> {
    return (await this.versions.load(organizationId)) ?? '0';
  }
}
