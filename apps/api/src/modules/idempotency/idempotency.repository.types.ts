/** Types generated for queries found in "apps/api/src/modules/idempotency/idempotency.repository.ts" */

/** 'Claim' parameters type */
export interface IClaimParams {
  abandonedAfterSeconds: number;
  fingerprint: string;
  key: string;
  lifetimeHours: number;
  organizationId: string;
}

/** 'Claim' return type */
export interface IClaimResult {
  claimed: number | null;
}

/** 'Claim' query type */
export interface IClaimQuery {
  params: IClaimParams;
  result: IClaimResult;
}

/** 'Find' parameters type */
export interface IFindParams {
  key: string;
  organizationId: string;
}

/** 'Find' return type */
export interface IFindResult {
  body: string | null;
  content_type: string | null;
  fingerprint: string;
  status_code: number | null;
}

/** 'Find' query type */
export interface IFindQuery {
  params: IFindParams;
  result: IFindResult;
}

/** 'Complete' parameters type */
export interface ICompleteParams {
  body: string;
  contentType?: string | null | void;
  key: string;
  organizationId: string;
  statusCode: number;
}

/** 'Complete' return type */
export type ICompleteResult = void;

/** 'Complete' query type */
export interface ICompleteQuery {
  params: ICompleteParams;
  result: ICompleteResult;
}

/** 'Forget' parameters type */
export interface IForgetParams {
  key: string;
  organizationId: string;
}

/** 'Forget' return type */
export type IForgetResult = void;

/** 'Forget' query type */
export interface IForgetQuery {
  params: IForgetParams;
  result: IForgetResult;
}

/** 'DeleteExpired' parameters type */
export interface IDeleteExpiredParams {
  lifetimeHours: number;
}

/** 'DeleteExpired' return type */
export type IDeleteExpiredResult = void;

/** 'DeleteExpired' query type */
export interface IDeleteExpiredQuery {
  params: IDeleteExpiredParams;
  result: IDeleteExpiredResult;
}

