/** Types generated for queries found in "apps/api/src/modules/rooms/rooms.repository.ts" */
export type DateOrString = Date | string;

export type DateOrStringArray = (DateOrString)[];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type booleanArray = (boolean)[];

export type numberArray = (number)[];

export type stringArray = (string)[];

/** 'RoomViews' parameters type */
export interface IRoomViewsParams {
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'RoomViews' return type */
export interface IRoomViewsResult {
  charged_cents: number | null;
  connection_minutes: number | null;
  created_at: Date;
  created_by: string;
  ended_at: Date | null;
  id: string;
  languages: stringArray | null;
  left_at: Date | null;
  name: string;
  participant_id: number | null;
  participant_identity: string | null;
  participant_joined_at: Date | null;
  participant_kind: string | null;
  sid: string | null;
  started_at: Date | null;
  status: string;
  streaming_mode: string | null;
  total_charged_cents: number;
  total_connection_minutes: number;
}

/** 'RoomViews' query type */
export interface IRoomViewsQuery {
  params: IRoomViewsParams;
  result: IRoomViewsResult;
}

/** 'CloseTranscript' parameters type */
export interface ICloseTranscriptParams {
  roomId: string;
}

/** 'CloseTranscript' return type */
export interface ICloseTranscriptResult {
  ended_at: Date | null;
  name: string;
  organization_id: string;
  started_at: Date | null;
}

/** 'CloseTranscript' query type */
export interface ICloseTranscriptQuery {
  params: ICloseTranscriptParams;
  result: ICloseTranscriptResult;
}

/** 'AddToTotals' parameters type */
export interface IAddToTotalsParams {
  cents: numberArray;
  minutes: numberArray;
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'AddToTotals' return type */
export type IAddToTotalsResult = void;

/** 'AddToTotals' query type */
export interface IAddToTotalsQuery {
  params: IAddToTotalsParams;
  result: IAddToTotalsResult;
}

/** 'LiveNameTaken' parameters type */
export interface ILiveNameTakenParams {
  name: string;
  organizationId: string;
}

/** 'LiveNameTaken' return type */
export interface ILiveNameTakenResult {
  taken: boolean;
}

/** 'LiveNameTaken' query type */
export interface ILiveNameTakenQuery {
  params: ILiveNameTakenParams;
  result: ILiveNameTakenResult;
}

/** 'InsertRooms' parameters type */
export interface IInsertRoomsParams {
  rooms: Json;
}

/** 'InsertRooms' return type */
export interface IInsertRoomsResult {
  id: string;
}

/** 'InsertRooms' query type */
export interface IInsertRoomsQuery {
  params: IInsertRoomsParams;
  result: IInsertRoomsResult;
}

/** 'RoomPage' parameters type */
export interface IRoomPageParams {
  limit: number;
  offset: number;
  organizationId: string;
  status?: string | null | void;
}

/** 'RoomPage' return type */
export interface IRoomPageResult {
  created_at: Date;
  created_by: string;
  ended_at: Date | null;
  id: string;
  name: string;
  sid: string | null;
  started_at: Date | null;
  status: string;
  streaming_mode: string | null;
  total_charged_cents: number;
  total_connection_minutes: number;
}

/** 'RoomPage' query type */
export interface IRoomPageQuery {
  params: IRoomPageParams;
  result: IRoomPageResult;
}

/** 'RoomView' parameters type */
export interface IRoomViewParams {
  organizationId: string;
  roomId: string;
}

/** 'RoomView' return type */
export interface IRoomViewResult {
  created_at: Date;
  created_by: string;
  ended_at: Date | null;
  id: string;
  name: string;
  sid: string | null;
  started_at: Date | null;
  status: string;
  streaming_mode: string | null;
  total_charged_cents: number;
  total_connection_minutes: number;
}

/** 'RoomView' query type */
export interface IRoomViewQuery {
  params: IRoomViewParams;
  result: IRoomViewResult;
}

/** 'Participants' parameters type */
export interface IParticipantsParams {
  organizationId: string;
  roomId: string;
}

/** 'Participants' return type */
export interface IParticipantsResult {
  charged_cents: number | null;
  connection_minutes: number | null;
  id: number;
  joined_at: Date;
  languages: stringArray | null;
  left_at: Date | null;
  participant_identity: string;
  participant_kind: string | null;
}

/** 'Participants' query type */
export interface IParticipantsQuery {
  params: IParticipantsParams;
  result: IParticipantsResult;
}

/** 'EndState' parameters type */
export interface IEndStateParams {
  organizationId: string;
  roomId: string;
}

/** 'EndState' return type */
export interface IEndStateResult {
  livekit_name: string;
  status: string;
}

/** 'EndState' query type */
export interface IEndStateQuery {
  params: IEndStateParams;
  result: IEndStateResult;
}

/** 'LiveRoomId' parameters type */
export interface ILiveRoomIdParams {
  name: string;
  organizationId: string;
}

/** 'LiveRoomId' return type */
export interface ILiveRoomIdResult {
  id: string;
}

/** 'LiveRoomId' query type */
export interface ILiveRoomIdQuery {
  params: ILiveRoomIdParams;
  result: ILiveRoomIdResult;
}

/** 'AdmissionLock' parameters type */
export interface IAdmissionLockParams {
  roomId: string;
}

/** 'AdmissionLock' return type */
export interface IAdmissionLockResult {
  pg_advisory_xact_lock: undefined | null;
}

/** 'AdmissionLock' query type */
export interface IAdmissionLockQuery {
  params: IAdmissionLockParams;
  result: IAdmissionLockResult;
}

/** 'LiveRoom' parameters type */
export interface ILiveRoomParams {
  organizationId: string;
  roomId: string;
}

/** 'LiveRoom' return type */
export interface ILiveRoomResult {
  created_at: Date;
  ended_at: Date | null;
  id: string;
  livekit_name: string;
  livekit_seen_at: Date | null;
  name: string;
  organization_id: string;
  settled: boolean;
  started_at: Date | null;
  status: string;
  streaming_mode: string | null;
  total_charged_cents: number;
  total_connection_minutes: number;
  translator_generation: number;
  translator_present: boolean;
}

/** 'LiveRoom' query type */
export interface ILiveRoomQuery {
  params: ILiveRoomParams;
  result: ILiveRoomResult;
}

/** 'SetMode' parameters type */
export interface ISetModeParams {
  mode: string;
  organizationId: string;
  roomId: string;
}

/** 'SetMode' return type */
export type ISetModeResult = void;

/** 'SetMode' query type */
export interface ISetModeQuery {
  params: ISetModeParams;
  result: ISetModeResult;
}

/** 'LockByLivekitNames' parameters type */
export interface ILockByLivekitNamesParams {
  livekitNames: stringArray;
}

/** 'LockByLivekitNames' return type */
export interface ILockByLivekitNamesResult {
  created_at: Date;
  ended_at: Date | null;
  id: string;
  livekit_name: string;
  livekit_seen_at: Date | null;
  name: string;
  organization_id: string;
  settled: boolean;
  started_at: Date | null;
  status: string;
  streaming_mode: string | null;
  total_charged_cents: number;
  total_connection_minutes: number;
  translator_generation: number;
  translator_present: boolean;
}

/** 'LockByLivekitNames' query type */
export interface ILockByLivekitNamesQuery {
  params: ILockByLivekitNamesParams;
  result: ILockByLivekitNamesResult;
}

/** 'LockById' parameters type */
export interface ILockByIdParams {
  organizationId: string;
  roomId: string;
}

/** 'LockById' return type */
export interface ILockByIdResult {
  created_at: Date;
  ended_at: Date | null;
  id: string;
  livekit_name: string;
  livekit_seen_at: Date | null;
  name: string;
  organization_id: string;
  settled: boolean;
  started_at: Date | null;
  status: string;
  streaming_mode: string | null;
  total_charged_cents: number;
  total_connection_minutes: number;
  translator_generation: number;
  translator_present: boolean;
}

/** 'LockById' query type */
export interface ILockByIdQuery {
  params: ILockByIdParams;
  result: ILockByIdResult;
}

/** 'Activate' parameters type */
export interface IActivateParams {
  organizationIds: stringArray;
  roomIds: stringArray;
  startedAts: DateOrStringArray;
  starts: booleanArray;
}

/** 'Activate' return type */
export type IActivateResult = void;

/** 'Activate' query type */
export interface IActivateQuery {
  params: IActivateParams;
  result: IActivateResult;
}

/** 'End' parameters type */
export interface IEndParams {
  at: DateOrString;
  organizationId: string;
  roomId: string;
  settleSeconds: number;
}

/** 'End' return type */
export interface IEndResult {
  ended_at: Date;
}

/** 'End' query type */
export interface IEndQuery {
  params: IEndParams;
  result: IEndResult;
}

/** 'SettlingDue' parameters type */
export interface ISettlingDueParams {
  limit: number;
}

/** 'SettlingDue' return type */
export interface ISettlingDueResult {
  id: string;
  organization_id: string;
}

/** 'SettlingDue' query type */
export interface ISettlingDueQuery {
  params: ISettlingDueParams;
  result: ISettlingDueResult;
}

/** 'MarkSettled' parameters type */
export interface IMarkSettledParams {
  organizationId: string;
  roomId: string;
}

/** 'MarkSettled' return type */
export type IMarkSettledResult = void;

/** 'MarkSettled' query type */
export interface IMarkSettledQuery {
  params: IMarkSettledParams;
  result: IMarkSettledResult;
}

/** 'LiveForReconcile' parameters type */
export interface ILiveForReconcileParams {
  afterId: string;
  limit: number;
}

/** 'LiveForReconcile' return type */
export interface ILiveForReconcileResult {
  has_open_connections: boolean;
  id: string;
  livekit_name: string;
  organization_id: string;
}

/** 'LiveForReconcile' query type */
export interface ILiveForReconcileQuery {
  params: ILiveForReconcileParams;
  result: ILiveForReconcileResult;
}

/** 'MarkSeen' parameters type */
export interface IMarkSeenParams {
  at: DateOrString;
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'MarkSeen' return type */
export type IMarkSeenResult = void;

/** 'MarkSeen' query type */
export interface IMarkSeenQuery {
  params: IMarkSeenParams;
  result: IMarkSeenResult;
}

/** 'FlipTranslatorPresence' parameters type */
export interface IFlipTranslatorPresenceParams {
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'FlipTranslatorPresence' return type */
export type IFlipTranslatorPresenceResult = void;

/** 'FlipTranslatorPresence' query type */
export interface IFlipTranslatorPresenceQuery {
  params: IFlipTranslatorPresenceParams;
  result: IFlipTranslatorPresenceResult;
}

