import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { describeSecret, generateApiKeySecret, hashApiKeySecret } from '../../common/auth/api-key-secret';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import type { ApiKeyView, CreatedApiKeyView } from './api-key.dto';
import { DatabaseClient } from '../../database/database.client';
import { ApiKeysRepository } from './api-keys.repository';

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly keys: ApiKeysRepository,
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
    const view = await this.database.transaction(async (tx) => {
      await this.keys.lockOrganization(organizationId, tx);
      if ((await this.keys.countActive(organizationId, tx)) >= cap) {
        throw ApiError.conflict(`The organization already has ${cap} active API keys, the most it may have: revoke one first.`);
      }
      const keyHash = hashApiKeySecret(secret, this.config.apiKeyPepper);
      return this.keys.insert(organizationId, { userId, name, keyPrefix, keyLast4, keyHash }, tx);
    });
    return { ...view, key: secret };
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<ApiKeyView>> {
    return toPage(await this.keys.listActive(actor.organizationId, query.limit + 1, query.offset), query);
  }

  async revoke(actor: Actor, keyId: string): Promise<void> {
    if (!(await this.database.oneStatement((tx) => this.keys.revoke(actor.organizationId, keyId, tx))))
      throw ApiError.notFound('API key not found.');
  }
}
