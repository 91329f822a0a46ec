/** Types generated for queries found in "apps/api/src/modules/organizations/organizations.repository.ts" */

/** 'InsertOrganization' parameters type */
export interface IInsertOrganizationParams {
  name: string;
}

/** 'InsertOrganization' return type */
export interface IInsertOrganizationResult {
  id: string;
}

/** 'InsertOrganization' query type */
export interface IInsertOrganizationQuery {
  params: IInsertOrganizationParams;
  result: IInsertOrganizationResult;
}

/** 'UpsertExternalOrganization' parameters type */
export interface IUpsertExternalOrganizationParams {
  externalId: string;
  name: string;
}

/** 'UpsertExternalOrganization' return type */
export interface IUpsertExternalOrganizationResult {
  id: string;
}

/** 'UpsertExternalOrganization' query type */
export interface IUpsertExternalOrganizationQuery {
  params: IUpsertExternalOrganizationParams;
  result: IUpsertExternalOrganizationResult;
}

/** 'OrganizationExists' parameters type */
export interface IOrganizationExistsParams {
  organizationId: string;
}

/** 'OrganizationExists' return type */
export interface IOrganizationExistsResult {
  found: number | null;
}

/** 'OrganizationExists' query type */
export interface IOrganizationExistsQuery {
  params: IOrganizationExistsParams;
  result: IOrganizationExistsResult;
}

/** 'OrganizationByReference' parameters type */
export interface IOrganizationByReferenceParams {
  reference: string;
}

/** 'OrganizationByReference' return type */
export interface IOrganizationByReferenceResult {
  id: string;
}

/** 'OrganizationByReference' query type */
export interface IOrganizationByReferenceQuery {
  params: IOrganizationByReferenceParams;
  result: IOrganizationByReferenceResult;
}

/** 'InsertUser' parameters type */
export interface IInsertUserParams {
  email: string;
  firstName: string;
  lastName: string;
  organizationId: string;
  role: string;
}

/** 'InsertUser' return type */
export interface IInsertUserResult {
  id: string;
}

/** 'InsertUser' query type */
export interface IInsertUserQuery {
  params: IInsertUserParams;
  result: IInsertUserResult;
}

/** 'UserBySubject' parameters type */
export interface IUserBySubjectParams {
  authSubject: string;
}

/** 'UserBySubject' return type */
export interface IUserBySubjectResult {
  created_at: Date;
  email: string;
  first_name: string;
  id: string;
  image_url: string;
  last_name: string;
  organization_id: string;
}

/** 'UserBySubject' query type */
export interface IUserBySubjectQuery {
  params: IUserBySubjectParams;
  result: IUserBySubjectResult;
}

/** 'UpsertSessionUser' parameters type */
export interface IUpsertSessionUserParams {
  authSubject: string;
  email: string;
  firstName: string;
  imageUrl: string;
  lastName: string;
  organizationId: string;
}

/** 'UpsertSessionUser' return type */
export interface IUpsertSessionUserResult {
  created_at: Date;
  email: string;
  first_name: string;
  id: string;
  image_url: string;
  last_name: string;
  organization_id: string;
}

/** 'UpsertSessionUser' query type */
export interface IUpsertSessionUserQuery {
  params: IUpsertSessionUserParams;
  result: IUpsertSessionUserResult;
}

