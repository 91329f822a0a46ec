/** Types generated for queries found in "apps/api/src/modules/customer-webhooks/webhook-deliveries.repository.ts" */
export type numberArray = (number)[];

export type stringArray = (string)[];

/** 'Log' parameters type */
export interface ILogParams {
  endpointId: string;
  limit: number;
  offset: number;
  organizationId: string;
}

/** 'Log' return type */
export interface ILogResult {
  attempts: number;
  created_at: Date;
  delivered_at: Date | null;
  event_id: string;
  event_type: string;
  id: string;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: Date | null;
  status: string;
}

/** 'Log' query type */
export interface ILogQuery {
  params: ILogParams;
  result: ILogResult;
}

/** 'Insert' parameters type */
export interface IInsertParams {
  bodies: stringArray;
  endpointIds: stringArray;
  eventIds: stringArray;
  ids: stringArray;
  lanes: stringArray;
  maxAttempts: number;
  organizationIds: stringArray;
  roomIds: stringArray;
  types: stringArray;
}

/** 'Insert' return type */
export type IInsertResult = void;

/** 'Insert' query type */
export interface IInsertQuery {
  params: IInsertParams;
  result: IInsertResult;
}

/** 'LockEventOrder' parameters type */
export interface ILockEventOrderParams {
  organizationIds: stringArray;
}

/** 'LockEventOrder' return type */
export interface ILockEventOrderResult {
  pg_advisory_xact_lock: undefined | null;
}

/** 'LockEventOrder' query type */
export interface ILockEventOrderQuery {
  params: ILockEventOrderParams;
  result: ILockEventOrderResult;
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

/** 'Retry' parameters type */
export interface IRetryParams {
  deliveryId: string;
  endpointId: string;
  organizationId: string;
}

/** 'Retry' return type */
export interface IRetryResult {
  attempts: number;
  created_at: Date;
  delivered_at: Date | null;
  event_id: string;
  event_type: string;
  id: string;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: Date | null;
  status: string;
}

/** 'Retry' query type */
export interface IRetryQuery {
  params: IRetryParams;
  result: IRetryResult;
}

/** 'FailPending' parameters type */
export interface IFailPendingParams {
  endpointId: string;
  organizationId: string;
}

/** 'FailPending' return type */
export type IFailPendingResult = void;

/** 'FailPending' query type */
export interface IFailPendingQuery {
  params: IFailPendingParams;
  result: IFailPendingResult;
}

/** 'DueEndpoints' parameters type */
export type IDueEndpointsParams = void;

/** 'DueEndpoints' return type */
export interface IDueEndpointsResult {
  endpoint_id: string;
}

/** 'DueEndpoints' query type */
export interface IDueEndpointsQuery {
  params: IDueEndpointsParams;
  result: IDueEndpointsResult;
}

/** 'Claim' parameters type */
export interface IClaimParams {
  count: number;
  endpointId: string;
  leaseSeconds: number;
}

/** 'Claim' return type */
export interface IClaimResult {
  attempts: number;
  body: string;
  event_id: string;
  id: string;
  max_attempts: number;
  secret: string;
  url: string;
}

/** 'Claim' query type */
export interface IClaimQuery {
  params: IClaimParams;
  result: IClaimResult;
}

/** 'Record' parameters type */
export interface IRecordParams {
  attempts: numberArray;
  codes: numberArray;
  errors: stringArray;
  ids: stringArray;
  statuses: stringArray;
  waitMs: numberArray;
}

/** 'Record' return type */
export type IRecordResult = void;

/** 'Record' query type */
export interface IRecordQuery {
  params: IRecordParams;
  result: IRecordResult;
}

