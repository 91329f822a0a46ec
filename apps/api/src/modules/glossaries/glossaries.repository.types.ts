/** Types generated for queries found in "apps/api/src/modules/glossaries/glossaries.repository.ts" */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type JsonArray = (Json)[];

export type stringArray = (string)[];

/** 'LockOrganization' parameters type */
export interface ILockOrganizationParams {
  organizationId: string;
}

/** 'LockOrganization' return type */
export interface ILockOrganizationResult {
  revision: number;
}

/** 'LockOrganization' query type */
export interface ILockOrganizationQuery {
  params: ILockOrganizationParams;
  result: ILockOrganizationResult;
}

/** 'BumpRevision' parameters type */
export interface IBumpRevisionParams {
  organizationId: string;
}

/** 'BumpRevision' return type */
export interface IBumpRevisionResult {
  revision: number;
}

/** 'BumpRevision' query type */
export interface IBumpRevisionQuery {
  params: IBumpRevisionParams;
  result: IBumpRevisionResult;
}

/** 'Count' parameters type */
export interface ICountParams {
  organizationId: string;
}

/** 'Count' return type */
export interface ICountResult {
  count: number;
}

/** 'Count' query type */
export interface ICountQuery {
  params: ICountParams;
  result: ICountResult;
}

/** 'Create' parameters type */
export interface ICreateParams {
  isDefault: boolean;
  name: string;
  organizationId: string;
}

/** 'Create' return type */
export interface ICreateResult {
  created_at: Date;
  default: boolean;
  entry_count: number;
  id: string;
  languages: stringArray;
  name: string;
  updated_at: Date;
}

/** 'Create' query type */
export interface ICreateQuery {
  params: ICreateParams;
  result: ICreateResult;
}

/** 'Page' parameters type */
export interface IPageParams {
  limit: number;
  offset: number;
  organizationId: string;
}

/** 'Page' return type */
export interface IPageResult {
  created_at: Date;
  default: boolean;
  entry_count: number;
  id: string;
  languages: stringArray;
  name: string;
  updated_at: Date;
}

/** 'Page' query type */
export interface IPageQuery {
  params: IPageParams;
  result: IPageResult;
}

/** 'Get' parameters type */
export interface IGetParams {
  glossaryId: string;
  organizationId: string;
}

/** 'Get' return type */
export interface IGetResult {
  created_at: Date;
  default: boolean;
  entry_count: number;
  id: string;
  languages: stringArray;
  name: string;
  updated_at: Date;
}

/** 'Get' query type */
export interface IGetQuery {
  params: IGetParams;
  result: IGetResult;
}

/** 'Lock' parameters type */
export interface ILockParams {
  glossaryId: string;
  organizationId: string;
}

/** 'Lock' return type */
export interface ILockResult {
  entry_count: number;
  id: string;
  is_default: boolean;
}

/** 'Lock' query type */
export interface ILockQuery {
  params: ILockParams;
  result: ILockResult;
}

/** 'Update' parameters type */
export interface IUpdateParams {
  glossaryId: string;
  isDefault?: boolean | null | void;
  name?: string | null | void;
  organizationId: string;
}

/** 'Update' return type */
export interface IUpdateResult {
  created_at: Date;
  default: boolean;
  entry_count: number;
  id: string;
  languages: stringArray;
  name: string;
  updated_at: Date;
}

/** 'Update' query type */
export interface IUpdateQuery {
  params: IUpdateParams;
  result: IUpdateResult;
}

/** 'Delete' parameters type */
export interface IDeleteParams {
  glossaryId: string;
  organizationId: string;
}

/** 'Delete' return type */
export interface IDeleteResult {
  is_default: boolean;
}

/** 'Delete' query type */
export interface IDeleteQuery {
  params: IDeleteParams;
  result: IDeleteResult;
}

/** 'LeaveRooms' parameters type */
export interface ILeaveRoomsParams {
  glossaryId: string;
  organizationId: string;
}

/** 'LeaveRooms' return type */
export type ILeaveRoomsResult = void;

/** 'LeaveRooms' query type */
export interface ILeaveRoomsQuery {
  params: ILeaveRoomsParams;
  result: ILeaveRoomsResult;
}

/** 'EntryPage' parameters type */
export interface IEntryPageParams {
  glossaryId: string;
  limit: number;
  offset: number;
  organizationId: string;
}

/** 'EntryPage' return type */
export interface IEntryPageResult {
  case_sensitive: boolean;
  created_at: Date;
  do_not_translate: boolean;
  id: string;
  sounds_like: Json;
  terms: Json;
}

/** 'EntryPage' query type */
export interface IEntryPageQuery {
  params: IEntryPageParams;
  result: IEntryPageResult;
}

/** 'Entries' parameters type */
export interface IEntriesParams {
  glossaryId: string;
  organizationId: string;
}

/** 'Entries' return type */
export interface IEntriesResult {
  case_sensitive: boolean;
  do_not_translate: boolean;
  sounds_like: Json;
  terms: Json;
}

/** 'Entries' query type */
export interface IEntriesQuery {
  params: IEntriesParams;
  result: IEntriesResult;
}

/** 'DuplicateCandidates' parameters type */
export interface IDuplicateCandidatesParams {
  glossaryId: string;
  organizationId: string;
  probes: JsonArray;
}

/** 'DuplicateCandidates' return type */
export interface IDuplicateCandidatesResult {
  case_sensitive: boolean;
  do_not_translate: boolean;
  sounds_like: Json;
  terms: Json;
}

/** 'DuplicateCandidates' query type */
export interface IDuplicateCandidatesQuery {
  params: IDuplicateCandidatesParams;
  result: IDuplicateCandidatesResult;
}

/** 'InsertEntry' parameters type */
export interface IInsertEntryParams {
  caseSensitive: boolean;
  doNotTranslate: boolean;
  glossaryId: string;
  organizationId: string;
  soundsLike: Json;
  termKeys: Json;
  terms: Json;
}

/** 'InsertEntry' return type */
export interface IInsertEntryResult {
  case_sensitive: boolean;
  created_at: Date;
  do_not_translate: boolean;
  id: string;
  sounds_like: Json;
  terms: Json;
}

/** 'InsertEntry' query type */
export interface IInsertEntryQuery {
  params: IInsertEntryParams;
  result: IInsertEntryResult;
}

/** 'InsertEntries' parameters type */
export interface IInsertEntriesParams {
  entries: Json;
  glossaryId: string;
  organizationId: string;
}

/** 'InsertEntries' return type */
export type IInsertEntriesResult = void;

/** 'InsertEntries' query type */
export interface IInsertEntriesQuery {
  params: IInsertEntriesParams;
  result: IInsertEntriesResult;
}

/** 'RemoveEntries' parameters type */
export interface IRemoveEntriesParams {
  glossaryId: string;
  organizationId: string;
}

/** 'RemoveEntries' return type */
export type IRemoveEntriesResult = void;

/** 'RemoveEntries' query type */
export interface IRemoveEntriesQuery {
  params: IRemoveEntriesParams;
  result: IRemoveEntriesResult;
}

/** 'DeleteEntry' parameters type */
export interface IDeleteEntryParams {
  entryId: string;
  glossaryId: string;
  organizationId: string;
}

/** 'DeleteEntry' return type */
export type IDeleteEntryResult = void;

/** 'DeleteEntry' query type */
export interface IDeleteEntryQuery {
  params: IDeleteEntryParams;
  result: IDeleteEntryResult;
}

/** 'SetCounts' parameters type */
export interface ISetCountsParams {
  entryCount: number;
  glossaryId: string;
  languages: stringArray;
  organizationId: string;
}

/** 'SetCounts' return type */
export type ISetCountsResult = void;

/** 'SetCounts' query type */
export interface ISetCountsQuery {
  params: ISetCountsParams;
  result: ISetCountsResult;
}

/** 'Recount' parameters type */
export interface IRecountParams {
  glossaryId: string;
  organizationId: string;
}

/** 'Recount' return type */
export type IRecountResult = void;

/** 'Recount' query type */
export interface IRecountQuery {
  params: IRecountParams;
  result: IRecountResult;
}

/** 'Owned' parameters type */
export interface IOwnedParams {
  glossaryIds: stringArray;
  organizationId: string;
}

/** 'Owned' return type */
export interface IOwnedResult {
  id: string;
}

/** 'Owned' query type */
export interface IOwnedQuery {
  params: IOwnedParams;
  result: IOwnedResult;
}

/** 'RoomList' parameters type */
export interface IRoomListParams {
  organizationId: string;
  roomId: string;
}

/** 'RoomList' return type */
export interface IRoomListResult {
  defaults: stringArray;
  own: stringArray | null;
}

/** 'RoomList' query type */
export interface IRoomListQuery {
  params: IRoomListParams;
  result: IRoomListResult;
}

/** 'SetRoomList' parameters type */
export interface ISetRoomListParams {
  glossaryIds: stringArray;
  organizationId: string;
  roomId: string;
}

/** 'SetRoomList' return type */
export type ISetRoomListResult = void;

/** 'SetRoomList' query type */
export interface ISetRoomListQuery {
  params: ISetRoomListParams;
  result: ISetRoomListResult;
}

/** 'InUse' parameters type */
export interface IInUseParams {
  organizationId: string;
  roomIds: stringArray;
}

/** 'InUse' return type */
export interface IInUseResult {
  glossaries: Json;
  revision: number;
  rooms: Json;
}

/** 'InUse' query type */
export interface IInUseQuery {
  params: IInUseParams;
  result: IInUseResult;
}

