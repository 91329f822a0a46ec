/** Types generated for queries found in "apps/api/src/modules/api-keys/api-keys.repository.ts" */
export type BufferArray = (Buffer)[];

export type DateOrString = Date | string;

export type stringArray = (string)[];

/** 'LockOrganization' parameters type */
export interface ILockOrganizationParams {
  organizationId: string;
}

/** 'LockOrganization' return type */
export interface ILockOrganizationResult {
  locked: number | null;
}

/** 'LockOrganization' query type */
export interface ILockOrganizationQuery {
  params: ILockOrganizationParams;
  result: ILockOrganizationResult;
}

/** 'CountActive' parameters type */
export interface ICountActiveParams {
  organizationId: string;
}

/** 'CountActive' return type */
export interface ICountActiveResult {
  active: number;
}

/** 'CountActive' query type */
export interface ICountActiveQuery {
  params: ICountActiveParams;
  result: ICountActiveResult;
}

/** 'Insert' parameters type */
export interface IInsertParams {
  expiresAt?: DateOrString | null | void;
  keyHash: Buffer;
  keyLast4: string;
  keyPrefix: string;
  name: string;
  organizationId: string;
  scopes?: stringArray | null | void;
  userId: string;
}

/** 'Insert' return type */
export interface IInsertResult {
  created_at: Date;
  created_by: string;
  expires_at: Date | null;
  id: string;
  key_last4: string;
  key_prefix: string;
  last_used_at: Date | null;
  name: string;
  scopes: stringArray | null;
}

/** 'Insert' query type */
export interface IInsertQuery {
  params: IInsertParams;
  result: IInsertResult;
}

/** 'ListActive' parameters type */
export interface IListActiveParams {
  limit: number;
  offset: number;
  organizationId: string;
}

/** 'ListActive' return type */
export interface IListActiveResult {
  created_at: Date;
  created_by: string;
  expires_at: Date | null;
  id: string;
  key_last4: string;
  key_prefix: string;
  last_used_at: Date | null;
  name: string;
  scopes: stringArray | null;
}

/** 'ListActive' query type */
export interface IListActiveQuery {
  params: IListActiveParams;
  result: IListActiveResult;
}

/** 'Revoke' parameters type */
export interface IRevokeParams {
  keyId: string;
  organizationId: string;
}

/** 'Revoke' return type */
export interface IRevokeResult {
  id: string;
}

/** 'Revoke' query type */
export interface IRevokeQuery {
  params: IRevokeParams;
  result: IRevokeResult;
}

/** 'LiveKeysByHash' parameters type */
export interface ILiveKeysByHashParams {
  keyHashes: BufferArray;
}

/** 'LiveKeysByHash' return type */
export interface ILiveKeysByHashResult {
  api_key_id: string;
  email: string;
  expires_at: Date | null;
  first_name: string;
  image_url: string;
  key_hash: Buffer;
  last_name: string;
  last_used_at: Date | null;
  organization_id: string;
  role: string;
  scopes: stringArray | null;
  user_created_at: Date;
  user_id: string;
}

/** 'LiveKeysByHash' query type */
export interface ILiveKeysByHashQuery {
  params: ILiveKeysByHashParams;
  result: ILiveKeysByHashResult;
}

/** 'Touch' parameters type */
export interface ITouchParams {
  apiKeyId: string;
  organizationId: string;
}

/** 'Touch' return type */
export type ITouchResult = void;

/** 'Touch' query type */
export interface ITouchQuery {
  params: ITouchParams;
  result: ITouchResult;
}

/** 'WorksFor' parameters type */
export interface IWorksForParams {
  keyHash: Buffer;
  organizationId: string;
}

/** 'WorksFor' return type */
export interface IWorksForResult {
  works: number | null;
}

/** 'WorksFor' query type */
export interface IWorksForQuery {
  params: IWorksForParams;
  result: IWorksForResult;
}

