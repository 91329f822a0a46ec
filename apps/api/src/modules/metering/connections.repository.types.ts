/** Types generated for queries found in "apps/api/src/modules/metering/connections.repository.ts" */
export type DateOrString = Date | string;

export type DateOrStringArray = (DateOrString)[];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type JsonArray = (Json)[];

export type numberArray = (number)[];

export type stringArray = (string)[];

/** 'Open' parameters type */
export interface IOpenParams {
  centsPerMinute: numberArray;
  identities: stringArray;
  joinedAts: DateOrStringArray;
  kinds: stringArray;
  languages: JsonArray;
  organizationIds: stringArray;
  participantSids: stringArray;
  roomIds: stringArray;
}

/** 'Open' return type */
export interface IOpenResult {
  id: number;
  identity: string;
  joined_at: Date;
  kind: string | null;
  languages: stringArray | null;
  participant_sid: string;
  room_id: string;
}

/** 'Open' query type */
export interface IOpenQuery {
  params: IOpenParams;
  result: IOpenResult;
}

/** 'ByParticipant' parameters type */
export interface IByParticipantParams {
  organizationIds: stringArray;
  participantSids: stringArray;
  roomIds: stringArray;
}

/** 'ByParticipant' return type */
export interface IByParticipantResult {
  cents_per_minute: number;
  id: number;
  joined_at: Date;
  left_at: Date | null;
  organization_id: string;
  participant_sid: string;
  room_id: string;
}

/** 'ByParticipant' query type */
export interface IByParticipantQuery {
  params: IByParticipantParams;
  result: IByParticipantResult;
}

/** 'OpenById' parameters type */
export interface IOpenByIdParams {
  connectionId: number;
  organizationId: string;
}

/** 'OpenById' return type */
export interface IOpenByIdResult {
  cents_per_minute: number;
  id: number;
  joined_at: Date;
  organization_id: string;
  room_id: string;
}

/** 'OpenById' query type */
export interface IOpenByIdQuery {
  params: IOpenByIdParams;
  result: IOpenByIdResult;
}

/** 'OpenInRoom' parameters type */
export interface IOpenInRoomParams {
  organizationId: string;
  roomId: string;
}

/** 'OpenInRoom' return type */
export interface IOpenInRoomResult {
  cents_per_minute: number;
  id: number;
  joined_at: Date;
  organization_id: string;
  room_id: string;
}

/** 'OpenInRoom' query type */
export interface IOpenInRoomQuery {
  params: IOpenInRoomParams;
  result: IOpenInRoomResult;
}

/** 'Close' parameters type */
export interface ICloseParams {
  cents: numberArray;
  ids: numberArray;
  leftAts: DateOrStringArray;
  minutes: numberArray;
  organizationIds: stringArray;
}

/** 'Close' return type */
export interface ICloseResult {
  id: number;
  identity: string;
  joined_at: Date;
  kind: string | null;
  languages: stringArray | null;
  left_at: Date;
}

/** 'Close' query type */
export interface ICloseQuery {
  params: ICloseParams;
  result: ICloseResult;
}

/** 'ClosedAfter' parameters type */
export interface IClosedAfterParams {
  at: DateOrString;
  organizationId: string;
  roomId: string;
}

/** 'ClosedAfter' return type */
export interface IClosedAfterResult {
  cents_per_minute: number;
  id: number;
  joined_at: Date;
  left_at: Date | null;
  organization_id: string;
  participant_sid: string;
  room_id: string;
}

/** 'ClosedAfter' query type */
export interface IClosedAfterQuery {
  params: IClosedAfterParams;
  result: IClosedAfterResult;
}

/** 'MoveEndsEarlier' parameters type */
export interface IMoveEndsEarlierParams {
  cents: numberArray;
  ids: numberArray;
  leftAts: DateOrStringArray;
  minutes: numberArray;
  organizationIds: stringArray;
}

/** 'MoveEndsEarlier' return type */
export interface IMoveEndsEarlierResult {
  cents: number;
  id: number;
  left_at: Date;
  minutes: number;
  organization_id: string;
  previous_cents: number;
  previous_minutes: number;
  room_id: string;
}

/** 'MoveEndsEarlier' query type */
export interface IMoveEndsEarlierQuery {
  params: IMoveEndsEarlierParams;
  result: IMoveEndsEarlierResult;
}

/** 'ConnectedLanguages' parameters type */
export interface IConnectedLanguagesParams {
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'ConnectedLanguages' return type */
export interface IConnectedLanguagesResult {
  languages: stringArray;
  room_id: string;
}

/** 'ConnectedLanguages' query type */
export interface IConnectedLanguagesQuery {
  params: IConnectedLanguagesParams;
  result: IConnectedLanguagesResult;
}

/** 'OpenInRooms' parameters type */
export interface IOpenInRoomsParams {
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'OpenInRooms' return type */
export interface IOpenInRoomsResult {
  id: number;
  identity: string;
  joined_at: Date;
  kind: string | null;
  livekit_seen_at: Date | null;
  organization_id: string;
  participant_sid: string;
  room_id: string;
}

/** 'OpenInRooms' query type */
export interface IOpenInRoomsQuery {
  params: IOpenInRoomsParams;
  result: IOpenInRoomsResult;
}

/** 'MarkSeen' parameters type */
export interface IMarkSeenParams {
  ats: DateOrStringArray;
  ids: numberArray;
  organizationIds: stringArray;
}

/** 'MarkSeen' return type */
export type IMarkSeenResult = void;

/** 'MarkSeen' query type */
export interface IMarkSeenQuery {
  params: IMarkSeenParams;
  result: IMarkSeenResult;
}

/** 'OpenCost' parameters type */
export interface IOpenCostParams {
  organizationId: string;
}

/** 'OpenCost' return type */
export interface IOpenCostResult {
  cents_per_minute: number;
  open: number;
}

/** 'OpenCost' query type */
export interface IOpenCostQuery {
  params: IOpenCostParams;
  result: IOpenCostResult;
}

