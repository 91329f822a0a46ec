/** Types generated for queries found in "apps/api/src/modules/members/member-invitations.repository.ts" */
export type DateOrString = Date | string;

/** 'InsertInvitation' parameters type */
export interface IInsertInvitationParams {
  email: string;
  expiresAt: DateOrString;
  invitedBy: string;
  organizationId: string;
  role: string;
  tokenHash: Buffer;
}

/** 'InsertInvitation' return type */
export interface IInsertInvitationResult {
  created_at: Date;
  email: string;
  expires_at: Date;
  id: string;
  role: string;
}

/** 'InsertInvitation' query type */
export interface IInsertInvitationQuery {
  params: IInsertInvitationParams;
  result: IInsertInvitationResult;
}

/** 'PendingPage' parameters type */
export interface IPendingPageParams {
  limit: number;
  offset: number;
  organizationId: string;
}

/** 'PendingPage' return type */
export interface IPendingPageResult {
  created_at: Date;
  email: string;
  expires_at: Date;
  id: string;
  role: string;
}

/** 'PendingPage' query type */
export interface IPendingPageQuery {
  params: IPendingPageParams;
  result: IPendingPageResult;
}

/** 'RevokePending' parameters type */
export interface IRevokePendingParams {
  id: string;
  organizationId: string;
}

/** 'RevokePending' return type */
export interface IRevokePendingResult {
  id: string;
}

/** 'RevokePending' query type */
export interface IRevokePendingQuery {
  params: IRevokePendingParams;
  result: IRevokePendingResult;
}

/** 'LockByToken' parameters type */
export interface ILockByTokenParams {
  tokenHash: Buffer;
}

/** 'LockByToken' return type */
export interface ILockByTokenResult {
  accepted: boolean;
  email: string;
  expired: boolean;
  id: string;
  organization_id: string;
  organization_name: string;
  revoked: boolean;
  role: string;
}

/** 'LockByToken' query type */
export interface ILockByTokenQuery {
  params: ILockByTokenParams;
  result: ILockByTokenResult;
}

/** 'MarkAccepted' parameters type */
export interface IMarkAcceptedParams {
  id: string;
  organizationId: string;
  userId: string;
}

/** 'MarkAccepted' return type */
export type IMarkAcceptedResult = void;

/** 'MarkAccepted' query type */
export interface IMarkAcceptedQuery {
  params: IMarkAcceptedParams;
  result: IMarkAcceptedResult;
}

