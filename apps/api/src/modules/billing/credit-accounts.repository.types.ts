/** Types generated for queries found in "apps/api/src/modules/billing/credit-accounts.repository.ts" */
export type DateOrString = Date | string;

export type DateOrStringArray = (DateOrString)[];

export type numberArray = (number)[];

export type stringArray = (string)[];

/** 'AccountsByOrganization' parameters type */
export interface IAccountsByOrganizationParams {
  organizationIds: stringArray;
}

/** 'AccountsByOrganization' return type */
export interface IAccountsByOrganizationResult {
  balance_cents: number;
  low_balance_cents: number | null;
  organization_id: string;
}

/** 'AccountsByOrganization' query type */
export interface IAccountsByOrganizationQuery {
  params: IAccountsByOrganizationParams;
  result: IAccountsByOrganizationResult;
}

/** 'SetLowBalanceThreshold' parameters type */
export interface ISetLowBalanceThresholdParams {
  cents?: number | null | void;
  currency: string;
  organizationId: string;
}

/** 'SetLowBalanceThreshold' return type */
export type ISetLowBalanceThresholdResult = void;

/** 'SetLowBalanceThreshold' query type */
export interface ISetLowBalanceThresholdQuery {
  params: ISetLowBalanceThresholdParams;
  result: ISetLowBalanceThresholdResult;
}

/** 'MoveBalance' parameters type */
export interface IMoveBalanceParams {
  currency: string;
  delta: number;
  organizationId: string;
}

/** 'MoveBalance' return type */
export interface IMoveBalanceResult {
  balance_cents: number;
  low_balance_cents: number | null;
}

/** 'MoveBalance' query type */
export interface IMoveBalanceQuery {
  params: IMoveBalanceParams;
  result: IMoveBalanceResult;
}

/** 'InsertCredit' parameters type */
export interface IInsertCreditParams {
  cents: number;
  currency: string;
  kind: string;
  note?: string | null | void;
  occurredAt: DateOrString;
  organizationId: string;
  providerReference?: string | null | void;
}

/** 'InsertCredit' return type */
export interface IInsertCreditResult {
  currency: string;
  delta_cents: number;
  id: number;
  kind: string;
  occurred_at: Date;
  provider_reference: string | null;
}

/** 'InsertCredit' query type */
export interface IInsertCreditQuery {
  params: IInsertCreditParams;
  result: IInsertCreditResult;
}

/** 'InsertCharges' parameters type */
export interface IInsertChargesParams {
  cents: numberArray;
  connectionIds: numberArray;
  currency: string;
  kinds: stringArray;
  occurredAts: DateOrStringArray;
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'InsertCharges' return type */
export type IInsertChargesResult = void;

/** 'InsertCharges' query type */
export interface IInsertChargesQuery {
  params: IInsertChargesParams;
  result: IInsertChargesResult;
}

