import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import { batchedRows } from '../batching/batched-rows';
import type { BatchedLoader } from '../batching/batched-loader';
import type { AppConfig } from '../../config/app-config';
import type { Actor } from './actor';
import { hashApiKeySecret } from './api-key-secret';
import { Database } from '../../database/database';

interface KeyRow {
  key_hash: Buffer;
  api_key_id: string;
  last_used_at: Date | null;
  organization_id: string;
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
  image_url: string;
  user_created_at: Date;
}

const LAST_USED_RESOLUTION_MS = 60_000;
/** Keyed hashes of recently presented keys; past this many, the memory starts over. */
const MAX_REMEMBERED_HASHES = 10_000;

const AUTH_QUERY = `SELECT k.key_hash, k.id AS api_key_id, k.last_used_at, u.organization_id, u.id AS user_id, u.email,
       u.first_name, u.last_name, u.image_url, u.created_at AS user_created_at
  FROM api_keys k JOIN users u ON u.id = k.created_by_user_id
 WHERE k.key_hash = ANY($1) AND k.revoked_at IS NULL`;

@Injectable()
export class ApiKeyAuthenticator {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  /**
   * Every authenticated request looks its key up: the lookups of requests arriving together share
   * one round trip (a named statement straight on the pool). Each lookup still runs after its
   * request arrived, so a revoked key is refused from the moment its revocation committed.
   */
  private readonly keys: BatchedLoader<string, KeyRow>;

  /**
   * The keyed hash of a secret never changes: a client presenting its key on every request costs one
   * HMAC, not one per request. Only the hash decides; the key is still looked up on every request.
   */
  private readonly hashes = new Map<string, string>();

  constructor(
    private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.keys = batchedRows<string, KeyRow>(
      database,
      { name: 'authenticate_api_keys', text: AUTH_QUERY },
      (row) => row.key_hash.toString('hex'),
      (hexHashes) => hexHashes.map((hex) => Buffer.from(hex, 'hex')),
    );
  }

  /** One indexed lookup by the keyed hash; null for an unknown or revoked key. */
  async authenticate(secret: string): Promise<Actor | null> {
    const row = await this.keys.load(this.hashOf(secret));
    if (!row) return null;
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.touch(row.api_key_id);
    }
    return {
      organizationId: row.organization_id,
      userId: row.user_id,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      imageUrl: row.image_url,
      userCreatedAt: row.user_created_at,
      apiKeyId: row.api_key_id,
    };
  }

  private hashOf(secret: string): string {
    let hash = this.hashes.get(secret);
    if (hash === undefined) {
      hash = hashApiKeySecret(secret, this.config.apiKeyPepper).toString('hex');
      if (this.hashes.size >= MAX_REMEMBERED_HASHES) this.hashes.clear();
      this.hashes.set(secret, hash);
    }
    return hash;
  }

  /** At most one write a minute per key; the condition keeps concurrent requests from all writing. */
  private async touch(apiKeyId: string): Promise<void> {
    await this.database
      .rows(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [apiKeyId],
      )
      .catch((error: Error) => this.logger.warn(`Could not record key use: ${error.message}`));
  }
}
