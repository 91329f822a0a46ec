/** Types generated for queries found in "apps/api/src/modules/billing/billing-history.repository.ts" */
export type stringArray = (string)[];

/** 'HistoryVersion' parameters type */
export interface IHistoryVersionParams {
  organizationId: string;
}

/** 'HistoryVersion' return type */
export interface IHistoryVersionResult {
  version: string;
}

/** 'HistoryVersion' query type */
export interface IHistoryVersionQuery {
  params: IHistoryVersionParams;
  result: IHistoryVersionResult;
}

/** 'HistoryLines' parameters type */
export interface IHistoryLinesParams {
  currency: string;
  limit: number;
  offset: number;
  organizationId: string;
}

/** 'HistoryLines' return type */
export interface IHistoryLinesResult {
  currency: string;
  delta_cents: number;
  kind: string;
  occurred_at: Date;
  provider_reference: string | null;
  room_id: string | null;
}

/** 'HistoryLines' query type */
export interface IHistoryLinesQuery {
  params: IHistoryLinesParams;
  result: IHistoryLinesResult;
}

/** 'HistoryRooms' parameters type */
export interface IHistoryRoomsParams {
  organizationId: string;
  roomIds: stringArray;
}

/** 'HistoryRooms' return type */
export interface IHistoryRoomsResult {
  ended_at: Date | null;
  id: string;
  name: string;
  started_at: Date | null;
  streaming_mode: string | null;
  total_charged_cents: number;
  total_connection_minutes: number;
}

/** 'HistoryRooms' query type */
export interface IHistoryRoomsQuery {
  params: IHistoryRoomsParams;
  result: IHistoryRoomsResult;
}

/** 'HistoryBreakdowns' parameters type */
export interface IHistoryBreakdownsParams {
  organizationId: string;
  roomIds: stringArray;
}

/** 'HistoryBreakdowns' return type */
export interface IHistoryBreakdownsResult {
  participants: string;
  room_id: string;
}

/** 'HistoryBreakdowns' query type */
export interface IHistoryBreakdownsQuery {
  params: IHistoryBreakdownsParams;
  result: IHistoryBreakdownsResult;
}

