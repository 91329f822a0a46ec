import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { Database } from '../../database/database';

export interface NewOrganization {
  name: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly database: Database,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** An organization, its first user, and a first API key for that user. */
  async create(input: NewOrganization): Promise<{ organization_id: string; user_id: string; api_key: string }> {
    const { orgId, userId } = await this.database.transaction(async (tx) => {
      const [org] = (await tx.rows(`INSERT INTO organizations (name) VALUES ($1) RETURNING id`, [input.name])) as { id: string }[];
      const [user] = (await tx.rows(
        `INSERT INTO users (organization_id, email, first_name, last_name) VALUES ($1, $2, $3, $4) RETURNING id`,
        [org.id, input.email, input.firstName ?? '', input.lastName ?? ''],
      )) as { id: string }[];
      return { orgId: org.id, userId: user.id };
    });
    const key = await this.apiKeys.createFor(orgId, userId, 'First key (operator CLI)');
    return { organization_id: orgId, user_id: userId, api_key: key.key };
  }

  async assertExists(organizationId: string): Promise<void> {
    const rows: unknown[] = await this.database.rows(`SELECT 1 FROM organizations WHERE id = $1`, [organizationId]);
    if (rows.length === 0) throw ApiError.notFound(`Organization ${organizationId} not found.`);
  }
}
