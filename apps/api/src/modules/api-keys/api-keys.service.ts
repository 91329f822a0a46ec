import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { describeSecret, generateApiKeySecret, hashApiKeySecret } from '../../common/auth/api-key-secret';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { ApiKeyView, CreatedApiKeyView } from './api-key.dto';
import { Database } from '../../database/database';

const VIEW_COLUMNS = `k.id, k.name, k.key_prefix, k.key_last4, k.created_at, k.last_used_at, u.email AS created_by`;

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(actor: Actor, name: string): Promise<CreatedApiKeyView> {
    return this.createFor(actor.organizationId, actor.userId, name);
  }

  /**
   * Also used by the operator CLI, which has no actor yet. The organization's row is locked while its
   * active keys are counted, so concurrent creations never pass the cap together.
   */
  async createFor(organizationId: string, userId: string, name: string): Promise<CreatedApiKeyView> {
    const secret = generateApiKeySecret();
    const { keyPrefix, keyLast4 } = describeSecret(secret);
    const cap = this.config.maxActiveApiKeysPerOrganization;
    const rows = await this.database.transaction(async (tx) => {
      await tx.rows(`SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE`, [organizationId]);
      // Counted by a statement of its own, after the lock: it sees every key committed before it.
      const [{ active }] = (await tx.rows(
        `SELECT count(*)::int AS active FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL`,
        [organizationId],
      )) as { active: number }[];
      if (active >= cap) {
        throw ApiError.conflict(`The organization already has ${cap} active API keys, the most it may have: revoke one first.`);
      }
      return (await tx.rows(
        `WITH k AS (
           INSERT INTO api_keys (organization_id, created_by_user_id, name, key_prefix, key_last4, key_hash)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING *)
         SELECT ${VIEW_COLUMNS} FROM k JOIN users u ON u.id = k.created_by_user_id`,
        [organizationId, userId, name, keyPrefix, keyLast4, hashApiKeySecret(secret, this.config.apiKeyPepper)],
      )) as ApiKeyView[];
    });
    return { ...rows[0], key: secret };
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<ApiKeyView>> {
    const rows: ApiKeyView[] = await this.database.rows(
      `SELECT ${VIEW_COLUMNS} FROM api_keys k JOIN users u ON u.id = k.created_by_user_id
        WHERE k.organization_id = $1 AND k.revoked_at IS NULL
        ORDER BY k.created_at DESC, k.id DESC LIMIT $2 OFFSET $3`,
      [actor.organizationId, query.limit + 1, query.offset],
    );
    return toPage(rows, query);
  }

  async revoke(actor: Actor, keyId: string): Promise<void> {
    const rows = await this.database.rows(
      `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL RETURNING id`,
      [keyId, actor.organizationId],
    );
    if (rows.length === 0) throw ApiError.notFound('API key not found.');
  }
}
