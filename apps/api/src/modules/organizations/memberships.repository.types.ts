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

/** 'MemberPage' parameters type */
export interface IMemberPageParams {
  limit: number;
  offset: number;
  organizationId: string;
  userId?: string | null | void;
}

/** 'MemberPage' return type */
export interface IMemberPageResult {
  email: string;
  first_name: string;
  joined_at: Date;
  last_name: string;
  role: string;
  user_id: string;
}

/** 'MemberPage' query type */
export interface IMemberPageQuery {
  params: IMemberPageParams;
  result: IMemberPageResult;
}

/** 'LockMembers' parameters type */
export interface ILockMembersParams {
  organizationId: string;
}

/** 'LockMembers' return type */
export interface ILockMembersResult {
  role: string;
  user_id: string;
}

/** 'LockMembers' query type */
export interface ILockMembersQuery {
  params: ILockMembersParams;
  result: ILockMembersResult;
}

/** 'ChangeRole' parameters type */
export interface IChangeRoleParams {
  organizationId: string;
  role: string;
  userId: string;
}

/** 'ChangeRole' return type */
export type IChangeRoleResult = void;

/** 'ChangeRole' query type */
export interface IChangeRoleQuery {
  params: IChangeRoleParams;
  result: IChangeRoleResult;
}

/** 'RemoveMember' parameters type */
export interface IRemoveMemberParams {
  organizationId: string;
  userId: string;
}

/** 'RemoveMember' return type */
export type IRemoveMemberResult = void;

/** 'RemoveMember' query type */
export interface IRemoveMemberQuery {
  params: IRemoveMemberParams;
  result: IRemoveMemberResult;
}

/** 'RevokeKeysOf' parameters type */
export interface IRevokeKeysOfParams {
  organizationId: string;
  userId: string;
}

/** 'RevokeKeysOf' return type */
export type IRevokeKeysOfResult = void;

/** 'RevokeKeysOf' query type */
export interface IRevokeKeysOfQuery {
  params: IRevokeKeysOfParams;
  result: IRevokeKeysOfResult;
}

/** 'AddMember' parameters type */
export interface IAddMemberParams {
  organizationId: string;
  role: string;
  userId: string;
}

/** 'AddMember' return type */
export interface IAddMemberResult {
  joined_at: Date;
}

/** 'AddMember' query type */
export interface IAddMemberQuery {
  params: IAddMemberParams;
  result: IAddMemberResult;
}

