/** Types generated for queries found in "apps/api/src/modules/translation-stats/translation-stats.repository.ts" */
export type DateOrString = Date | string;

/** 'Insert' parameters type */
export interface IInsertParams {
  audioSeconds?: number | null | void;
  direction?: string | null | void;
  eventKey: string;
  livekitRoom: string;
  occurredAt: DateOrString;
  p50Ms?: number | null | void;
  p95Ms?: number | null | void;
  roomId: string;
  samples?: number | null | void;
  type: string;
}

/** 'Insert' return type */
export interface IInsertResult {
  id: number;
}

/** 'Insert' query type */
export interface IInsertQuery {
  params: IInsertParams;
  result: IInsertResult;
}

/** 'RoomExists' parameters type */
export interface IRoomExistsParams {
  organizationId: string;
  roomId: string;
}

/** 'RoomExists' return type */
export interface IRoomExistsResult {
  id: string;
}

/** 'RoomExists' query type */
export interface IRoomExistsQuery {
  params: IRoomExistsParams;
  result: IRoomExistsResult;
}

/** 'Events' parameters type */
export interface IEventsParams {
  organizationId: string;
  roomId: string;
}

/** 'Events' return type */
export interface IEventsResult {
  audio_seconds: number | null;
  direction: string | null;
  occurred_at: Date;
  p50_ms: number | null;
  p95_ms: number | null;
  samples: number | null;
  type: string;
}

/** 'Events' query type */
export interface IEventsQuery {
  params: IEventsParams;
  result: IEventsResult;
}

