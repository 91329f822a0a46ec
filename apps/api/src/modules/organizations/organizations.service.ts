import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { DatabaseClient } from '../../database/database.client';
import { OrganizationsRepository } from './organizations.repository';

export interface NewOrganization {
  name: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly organizations: OrganizationsRepository,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** An organization, its first user, and a first API key for that user. */
  async create(input: NewOrganization): Promise<{ organization_id: string; user_id: string; api_key: string }> {
    const { orgId, userId } = await this.database.transaction(async (tx) => {
      const orgId = await this.organizations.insert(input.name, tx);
      const userId = await this.organizations.insertUser(
        orgId,
        { email: input.email, firstName: input.firstName ?? '', lastName: input.lastName ?? '' },
        'owner',
        tx,
      );
      return { orgId, userId };
    });
    const key = await this.apiKeys.createFor(orgId, userId, 'First key (operator CLI)');
    return { organization_id: orgId, user_id: userId, api_key: key.key };
  }

  async assertExists(organizationId: string): Promise<void> {
    if (!(await this.organizations.exists(organizationId))) throw ApiError.notFound(`Organization ${organizationId} not found.`);
  }
}
