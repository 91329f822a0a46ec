import { isPermission, type Role } from '@app/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { Actor } from '../../common/auth/actor';
import { hashApiKeySecret } from '../../common/auth/api-key-secret';
import { ApiKeysRepository } from '../api-keys/api-keys.repository';
import { DatabaseClient } from '../../database/database.client';

const LAST_USED_RESOLUTION_MS = 60_000;
/** Keyed hashes of recently presented keys; past this many, the memory starts over. */
const MAX_REMEMBERED_HASHES = 10_000;

@Injectable()
export class ApiKeyAuthenticator {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  /**
   * The keyed hash of a secret never changes: a client presenting its key on every request costs one
   * HMAC, not one per request. Only the hash decides; the key is still looked up on every request.
   */
  private readonly hashes = new Map<string, string>();

  constructor(
    /**
     * Every authenticated request looks its key up: the lookups of requests arriving together share
     * one round trip (`ApiKeysRepository.findLive`, a named statement straight on the pool).
     */
    private readonly keys: ApiKeysRepository,
    private readonly database: DatabaseClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * One indexed lookup by the keyed hash; null for an unknown or revoked key (or one whose creator is no
   * longer a member of its organization), `expired` for a key past its `expires_at`.
   */
  async authenticate(secret: string): Promise<Actor | { expiredAt: Date } | null> {
    const row = await this.keys.findLive(this.hashOf(secret));
    if (!row) return null;
    if (row.expires_at !== null && row.expires_at.getTime() <= Date.now()) return { expiredAt: row.expires_at };
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.touch(row.organization_id, row.api_key_id);
    }
    return {
      organizationId: row.organization_id,
      role: row.role as Role,
      scopes: row.scopes?.filter(isPermission) ?? null,
      userId: row.user_id,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      imageUrl: row.image_url,
      userCreatedAt: row.user_created_at,
      apiKeyId: row.api_key_id,
      emailVerified: false,
      requestId: null,
      ip: null,
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

  /** At most one write a minute per key; a failed write never fails the request. */
  private async touch(organizationId: string, apiKeyId: string): Promise<void> {
    await this.database
      .oneStatement((tx) => this.keys.touch(organizationId, apiKeyId, tx))
      .catch((error: Error) => this.logger.warn(`Could not record key use: ${error.message}`));
  }
}
