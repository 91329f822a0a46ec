/** Types generated for queries found in "apps/api/src/modules/webhooks/inbound-events.repository.ts" */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type JsonArray = (Json)[];

export type stringArray = (string)[];

/** 'Insert' parameters type */
export interface IInsertParams {
  eventIds: stringArray;
  eventTypes: stringArray;
  payloads: JsonArray;
  providers: stringArray;
  subjects: stringArray;
}

/** 'Insert' return type */
export interface IInsertResult {
  provider: string;
}

/** 'Insert' query type */
export interface IInsertQuery {
  params: IInsertParams;
  result: IInsertResult;
}

/** 'MarkProcessed' parameters type */
export interface IMarkProcessedParams {
  eventIds: stringArray;
  provider: string;
}

/** 'MarkProcessed' return type */
export interface IMarkProcessedResult {
  payload: Json;
}

/** 'MarkProcessed' query type */
export interface IMarkProcessedQuery {
  params: IMarkProcessedParams;
  result: IMarkProcessedResult;
}

/** 'UnappliedSubjects' parameters type */
export interface IUnappliedSubjectsParams {
  provider: string;
  subjects: stringArray;
}

/** 'UnappliedSubjects' return type */
export interface IUnappliedSubjectsResult {
  subject: string;
}

/** 'UnappliedSubjects' query type */
export interface IUnappliedSubjectsQuery {
  params: IUnappliedSubjectsParams;
  result: IUnappliedSubjectsResult;
}

/** 'Unprocessed' parameters type */
export interface IUnprocessedParams {
  limit: number;
  olderThanSeconds: number;
}

/** 'Unprocessed' return type */
export interface IUnprocessedResult {
  event_id: string;
  provider: string;
  seq: number;
  subject: string | null;
}

/** 'Unprocessed' query type */
export interface IUnprocessedQuery {
  params: IUnprocessedParams;
  result: IUnprocessedResult;
}

