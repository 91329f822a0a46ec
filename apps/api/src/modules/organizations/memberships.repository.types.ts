/** Types generated for queries found in "apps/api/src/modules/organizations/memberships.repository.ts" */

/** 'ActingMembership' parameters type */
export interface IActingMembershipParams {
  organizationId?: string | null | void;
  userId: string;
}

/** 'ActingMembership' return type */
export interface IActingMembershipResult {
  organization_id: string;
  role: string;
}

/** 'ActingMembership' query type */
export interface IActingMembershipQuery {
  params: IActingMembershipParams;
  result: IActingMembershipResult;
}

/** 'OrganizationsOf' parameters type */
export interface IOrganizationsOfParams {
  userId: string;
}

/** 'OrganizationsOf' return type */
export interface IOrganizationsOfResult {
  joined_at: Date;
  name: string;
  organization_id: string;
  role: string;
}

/** 'OrganizationsOf' query type */
export interface IOrganizationsOfQuery {
  params: IOrganizationsOfParams;
  result: IOrganizationsOfResult;
}

