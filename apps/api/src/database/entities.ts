import { ApiKey } from '../modules/api-keys/api-key.entity';
import { Organization } from '../modules/organizations/organization.entity';
import { User } from '../modules/users/user.entity';

export const ENTITIES = [Organization, User, ApiKey];
