/** Types generated for queries found in "apps/api/src/queue/outbox.repository.ts" */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type JsonArray = (Json)[];

export type stringArray = (string)[];

/** 'Insert' parameters type */
export interface IInsertParams {
  jobIds: stringArray;
  names: stringArray;
  payloads: JsonArray;
  queues: stringArray;
}

/** 'Insert' return type */
export type IInsertResult = void;

/** 'Insert' query type */
export interface IInsertQuery {
  params: IInsertParams;
  result: IInsertResult;
}

/** 'Pending' parameters type */
export interface IPendingParams {
  limit: number;
}

/** 'Pending' return type */
export interface IPendingResult {
  job_id: string;
  job_name: string;
  payload: Json;
  queue: string;
}

/** 'Pending' query type */
export interface IPendingQuery {
  params: IPendingParams;
  result: IPendingResult;
}

/** 'MarkEnqueued' parameters type */
export interface IMarkEnqueuedParams {
  jobIds: stringArray;
}

/** 'MarkEnqueued' return type */
export type IMarkEnqueuedResult = void;

/** 'MarkEnqueued' query type */
export interface IMarkEnqueuedQuery {
  params: IMarkEnqueuedParams;
  result: IMarkEnqueuedResult;
}

