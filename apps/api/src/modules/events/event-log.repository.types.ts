/** Types generated for queries found in "apps/api/src/modules/events/event-log.repository.ts" */
export type DateOrString = Date | string;

export type numberArray = (number)[];

export type stringArray = (string)[];

/** 'Page' parameters type */
export interface IPageParams {
  limit: number;
  offset: number;
  organizationId: string;
  roomId?: string | null | void;
  since?: DateOrString | null | void;
  type?: string | null | void;
}

/** 'Page' return type */
export interface IPageResult {
  body: string;
}

/** 'Page' query type */
export interface IPageQuery {
  params: IPageParams;
  result: IPageResult;
}

/** 'After' parameters type */
export interface IAfterParams {
  afters: numberArray;
  limit: number;
  organizationIds: stringArray;
}

/** 'After' return type */
export interface IAfterResult {
  body: string;
  organization_id: string;
  room_id: string | null;
  seq: number;
  type: string;
}

/** 'After' query type */
export interface IAfterQuery {
  params: IAfterParams;
  result: IAfterResult;
}

/** 'CursorState' parameters type */
export interface ICursorStateParams {
  organizationId: string;
  seq: number;
}

/** 'CursorState' return type */
export interface ICursorStateResult {
  known: boolean;
  newest: number | null;
  oldest: number | null;
}

/** 'CursorState' query type */
export interface ICursorStateQuery {
  params: ICursorStateParams;
  result: ICursorStateResult;
}

