import { Injectable } from '@nestjs/common';
import type { BatchedLoader } from '../../common/batching/batched-loader';
import { batchedRows } from '../../common/batching/batched-rows';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { prepared, sql } from '../../database/typed-sql';
import type {
  ICountActiveQuery,
  IInsertQuery,
  IListActiveQuery,
  IListActiveResult,
  ILiveKeysByHashQuery,
  ILiveKeysByHashResult,
  ILockOrganizationQuery,
  IRevokeQuery,
  ITouchQuery,
  IWorksForQuery,
} from './api-keys.repository.types';

/** A key as its organization sees it: never its secret or hash, only their first and last characters (`created_by`: its creator's email). */
export type ApiKeyRow = IListActiveResult;

/** A live key found by its keyed hash, with the user it acts for. */
export type LiveKeyRow = ILiveKeysByHashResult;

export interface NewApiKey {
  userId: string;
  name: string;
  keyPrefix: string;
  keyLast4: string;
  keyHash: Buffer;
  /** null: every permission of its creator's role. */
  scopes: string[] | null;
  expiresAt: Date | null;
}

// Taken before the active keys are counted, so concurrent creations never pass the cap together.
const LOCK_ORGANIZATION = sql<ILockOrganizationQuery>`SELECT 1 AS locked FROM organizations WHERE id = $organizationId! FOR NO KEY UPDATE`;

const COUNT_ACTIVE = sql<ICountActiveQuery>`SELECT count(*)::int AS "active!" FROM api_keys
  WHERE organization_id = $organizationId! AND revoked_at IS NULL`;

const INSERT = sql<IInsertQuery>`WITH k AS (
    INSERT INTO api_keys (organization_id, created_by_user_id, name, key_prefix, key_last4, key_hash, scopes, expires_at)
    VALUES ($organizationId!, $userId!, $name!, $keyPrefix!, $keyLast4!, $keyHash!, $scopes::text[], $expiresAt) RETURNING *)
  SELECT k.id, k.name, k.key_prefix, k.key_last4, k.created_at, k.last_used_at, u.email AS created_by, k.scopes, k.expires_at
    FROM k JOIN users u ON u.id = k.created_by_user_id`;

const LIST_ACTIVE = sql<IListActiveQuery>`SELECT k.id, k.name, k.key_prefix, k.key_last4, k.created_at, k.last_used_at, u.email AS created_by,
  k.scopes, k.expires_at
  FROM api_keys k JOIN users u ON u.id = k.created_by_user_id
  WHERE k.organization_id = $organizationId! AND k.revoked_at IS NULL
  ORDER BY k.created_at DESC, k.id DESC LIMIT $limit! OFFSET $offset!`;

const REVOKE = sql<IRevokeQuery>`UPDATE api_keys SET revoked_at = now()
  WHERE id = $keyId! AND organization_id = $organizationId! AND revoked_at IS NULL RETURNING id`;

// The creator's current role in the key's organization: a key of a member who left finds no membership.
const LIVE_KEYS_BY_HASH = sql<ILiveKeysByHashQuery>`SELECT k.key_hash, k.id AS api_key_id, k.last_used_at, k.organization_id,
       k.scopes, k.expires_at, m.role, u.id AS user_id, u.email, u.first_name, u.last_name, u.image_url, u.created_at AS user_created_at
  FROM api_keys k JOIN users u ON u.id = k.created_by_user_id
  JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.created_by_user_id
 WHERE k.key_hash = ANY($keyHashes!) AND k.revoked_at IS NULL`;

/** Every request presenting a key runs this: a prepared statement, the keys of a batch as its one parameter. */
const AUTHENTICATE_API_KEYS = prepared('authenticate_api_keys', LIVE_KEYS_BY_HASH);

// The condition keeps concurrent requests from all writing.
const TOUCH = sql<ITouchQuery>`UPDATE api_keys SET last_used_at = now()
  WHERE id = $apiKeyId! AND organization_id = $organizationId!
    AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`;

const WORKS_FOR = sql<IWorksForQuery>`SELECT 1 AS works FROM api_keys k
  JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.created_by_user_id
  WHERE k.key_hash = $keyHash! AND k.revoked_at IS NULL AND k.organization_id = $organizationId!
    AND (k.expires_at IS NULL OR k.expires_at > now())`;

/** The `api_keys` rows: creating, listing and revoking an organization's keys, and finding a presented key. */
@Injectable()
export class ApiKeysRepository {
  /**
   * Lookups of requests arriving together share one round trip (one batch in flight). Each lookup
   * still runs after its request arrived, so a revoked key is refused from the moment its
   * revocation committed.
   */
  private readonly liveKeys: BatchedLoader<string, LiveKeyRow>;

  constructor(private readonly database: DatabaseClient) {
    this.liveKeys = batchedRows(
      database,
      AUTHENTICATE_API_KEYS,
      (row) => row.key_hash.toString('hex'),
      (hexHashes) => hexHashes.map((hex) => Buffer.from(hex, 'hex')),
    );
  }

  /** Locks the organization's row until the transaction `sql` ends. */
  async lockOrganization(organizationId: string, tx: Tx): Promise<void> {
    await tx.rows(LOCK_ORGANIZATION, { organizationId });
  }

  /** Keys not revoked. Run after `lockOrganization`, in its own statement, it sees every key committed before and the transaction's own. */
  async countActive(organizationId: string, sql: Sql = this.database): Promise<number> {
    const [row] = await sql.rows(COUNT_ACTIVE, { organizationId });
    return row.active;
  }

  async insert(organizationId: string, key: NewApiKey, tx: Tx): Promise<ApiKeyRow> {
    const [row] = await tx.rows(INSERT, { organizationId, ...key });
    return row;
  }

  /** Up to `limit` live keys after `offset`, newest first (ties: highest id first). */
  async listActive(organizationId: string, limit: number, offset: number, sql: Sql = this.database): Promise<ApiKeyRow[]> {
    return sql.rows(LIST_ACTIVE, { organizationId, limit, offset });
  }

  /** False when the organization has no such live key (another organization's, or revoked already). */
  async revoke(organizationId: string, keyId: string, tx: Tx): Promise<boolean> {
    return (await tx.rows(REVOKE, { keyId, organizationId })).length > 0;
  }

  /** The live key whose keyed hash (hex) this is, with its user; undefined for an unknown or revoked key. */
  async findLive(hexHash: string): Promise<LiveKeyRow | undefined> {
    return this.liveKeys.load(hexHash);
  }

  /** Records a use now, unless one was recorded within the last minute. */
  async touch(organizationId: string, apiKeyId: string, tx: Tx): Promise<void> {
    await tx.rows(TOUCH, { apiKeyId, organizationId });
  }

  /** Whether a live key with this keyed hash acts for a user of the organization. */
  async worksFor(organizationId: string, keyHash: Buffer, sql: Sql = this.database): Promise<boolean> {
    return (await sql.rows(WORKS_FOR, { keyHash, organizationId })).length > 0;
  }
}
