/** Types generated for queries found in "apps/api/src/modules/audit/audit-events.repository.ts" */
export type DateOrString = Date | string;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** 'InsertEvents' parameters type */
export interface IInsertEventsParams {
  events: Json;
}

/** 'InsertEvents' return type */
export type IInsertEventsResult = void;

/** 'InsertEvents' query type */
export interface IInsertEventsQuery {
  params: IInsertEventsParams;
  result: IInsertEventsResult;
}

/** 'Page' parameters type */
export interface IPageParams {
  action?: string | null | void;
  actorUserId?: string | null | void;
  limit: number;
  offset: number;
  organizationId: string;
  since?: DateOrString | null | void;
  targetId?: string | null | void;
  until?: DateOrString | null | void;
}

/** 'Page' return type */
export interface IPageResult {
  action: string;
  actor_api_key_id: string | null;
  actor_api_key_prefix: string | null;
  actor_email: string | null;
  actor_type: string;
  actor_user_id: string | null;
  details: Json;
  id: string;
  ip: string | null;
  occurred_at: Date;
  request_id: string | null;
  target_id: string;
  target_type: string;
}

/** 'Page' query type */
export interface IPageQuery {
  params: IPageParams;
  result: IPageResult;
}

/** 'AllowRetention' parameters type */
export type IAllowRetentionParams = void;

/** 'AllowRetention' return type */
export interface IAllowRetentionResult {
  allowed: string;
}

/** 'AllowRetention' query type */
export interface IAllowRetentionQuery {
  params: IAllowRetentionParams;
  result: IAllowRetentionResult;
}

/** 'DeleteExpired' parameters type */
export interface IDeleteExpiredParams {
  days: number;
  limit: number;
}

/** 'DeleteExpired' return type */
export type IDeleteExpiredResult = void;

/** 'DeleteExpired' query type */
export interface IDeleteExpiredQuery {
  params: IDeleteExpiredParams;
  result: IDeleteExpiredResult;
}

