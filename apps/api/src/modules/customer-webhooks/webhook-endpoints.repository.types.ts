/** Types generated for queries found in "apps/api/src/modules/customer-webhooks/webhook-endpoints.repository.ts" */
export type stringArray = (string)[];

/** 'Create' parameters type */
export interface ICreateParams {
  description?: string | null | void;
  events?: stringArray | null | void;
  everyType: stringArray;
  organizationId: string;
  secret: string;
  url: string;
}

/** 'Create' return type */
export interface ICreateResult {
  created_at: Date;
  description: string | null;
  enabled: boolean;
  events: stringArray;
  id: string;
  url: string;
}

/** 'Create' query type */
export interface ICreateQuery {
  params: ICreateParams;
  result: ICreateResult;
}

/** 'Page' parameters type */
export interface IPageParams {
  everyType: stringArray;
  limit: number;
  offset: number;
  organizationId: string;
}

/** 'Page' return type */
export interface IPageResult {
  created_at: Date;
  description: string | null;
  enabled: boolean;
  events: stringArray;
  id: string;
  url: string;
}

/** 'Page' query type */
export interface IPageQuery {
  params: IPageParams;
  result: IPageResult;
}

/** 'Delete' parameters type */
export interface IDeleteParams {
  endpointId: string;
  organizationId: string;
}

/** 'Delete' return type */
export type IDeleteResult = void;

/** 'Delete' query type */
export interface IDeleteQuery {
  params: IDeleteParams;
  result: IDeleteResult;
}

/** 'Exists' parameters type */
export interface IExistsParams {
  endpointId: string;
  organizationId: string;
}

/** 'Exists' return type */
export interface IExistsResult {
  found: number | null;
}

/** 'Exists' query type */
export interface IExistsQuery {
  params: IExistsParams;
  result: IExistsResult;
}

/** 'Subscribed' parameters type */
export interface ISubscribedParams {
  organizationIds: stringArray;
}

/** 'Subscribed' return type */
export interface ISubscribedResult {
  events: stringArray | null;
  id: string;
  organization_id: string;
}

/** 'Subscribed' query type */
export interface ISubscribedQuery {
  params: ISubscribedParams;
  result: ISubscribedResult;
}

