/** Types generated for queries found in "apps/api/src/modules/transcripts/transcripts.repository.ts" */
export type DateOrString = Date | string;

export type DateOrStringArray = (DateOrString)[];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type JsonArray = (Json)[];

export type stringArray = (string)[];

/** 'Settings' parameters type */
export interface ISettingsParams {
  organizationId: string;
}

/** 'Settings' return type */
export interface ISettingsResult {
  retention_days: number;
  store: boolean;
}

/** 'Settings' query type */
export interface ISettingsQuery {
  params: ISettingsParams;
  result: ISettingsResult;
}

/** 'SaveSettings' parameters type */
export interface ISaveSettingsParams {
  organizationId: string;
  retentionDays: number;
  store: boolean;
}

/** 'SaveSettings' return type */
export type ISaveSettingsResult = void;

/** 'SaveSettings' query type */
export interface ISaveSettingsQuery {
  params: ISaveSettingsParams;
  result: ISaveSettingsResult;
}

/** 'StoreSegments' parameters type */
export interface IStoreSegmentsParams {
  committedTexts: stringArray;
  endedAts: DateOrStringArray;
  identities: stringArray;
  languages: stringArray;
  livekitRooms: stringArray;
  revisedWords: JsonArray;
  roomIds: stringArray;
  segmentIds: stringArray;
  startedAts: DateOrStringArray;
  texts: stringArray;
  translationLanguages: stringArray;
  translationTexts: stringArray;
}

/** 'StoreSegments' return type */
export interface IStoreSegmentsResult {
  room_id: string;
  segment_id: string;
}

/** 'StoreSegments' query type */
export interface IStoreSegmentsQuery {
  params: IStoreSegmentsParams;
  result: IStoreSegmentsResult;
}

/** 'Room' parameters type */
export interface IRoomParams {
  organizationId: string;
  roomId: string;
}

/** 'Room' return type */
export interface IRoomResult {
  ended_at: Date | null;
  id: string;
  name: string;
  started_at: Date | null;
}

/** 'Room' query type */
export interface IRoomQuery {
  params: IRoomParams;
  result: IRoomResult;
}

/** 'Page' parameters type */
export interface IPageParams {
  limit: number;
  offset: number;
  organizationId: string;
  roomId: string;
}

/** 'Page' return type */
export interface IPageResult {
  committed_text: string | null;
  ended_at: Date;
  language: string;
  participant_identity: string;
  revised_words: stringArray | null;
  segment_id: string;
  started_at: Date;
  text: string;
  translation_language: string | null;
  translation_text: string | null;
}

/** 'Page' query type */
export interface IPageQuery {
  params: IPageParams;
  result: IPageResult;
}

/** 'All' parameters type */
export interface IAllParams {
  organizationId: string;
  roomId: string;
}

/** 'All' return type */
export interface IAllResult {
  ended_ms: number;
  language: string;
  participant_identity: string;
  started_ms: number;
  text: string;
  translation_language: string | null;
  translation_text: string | null;
}

/** 'All' query type */
export interface IAllQuery {
  params: IAllParams;
  result: IAllResult;
}

/** 'Erase' parameters type */
export interface IEraseParams {
  organizationId: string;
  roomId: string;
}

/** 'Erase' return type */
export type IEraseResult = void;

/** 'Erase' query type */
export interface IEraseQuery {
  params: IEraseParams;
  result: IEraseResult;
}

/** 'DeleteExpired' parameters type */
export interface IDeleteExpiredParams {
  defaultRetentionDays: number;
  limit: number;
}

/** 'DeleteExpired' return type */
export type IDeleteExpiredResult = void;

/** 'DeleteExpired' query type */
export interface IDeleteExpiredQuery {
  params: IDeleteExpiredParams;
  result: IDeleteExpiredResult;
}

/** 'DueToClose' parameters type */
export interface IDueToCloseParams {
  graceSeconds: number;
  limit: number;
}

/** 'DueToClose' return type */
export interface IDueToCloseResult {
  id: string;
}

/** 'DueToClose' query type */
export interface IDueToCloseQuery {
  params: IDueToCloseParams;
  result: IDueToCloseResult;
}

/** 'Summary' parameters type */
export interface ISummaryParams {
  roomId: string;
}

/** 'Summary' return type */
export interface ISummaryResult {
  languages: stringArray;
  segments: number;
}

/** 'Summary' query type */
export interface ISummaryQuery {
  params: ISummaryParams;
  result: ISummaryResult;
}

