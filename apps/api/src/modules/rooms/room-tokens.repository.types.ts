/** Types generated for queries found in "apps/api/src/modules/rooms/room-tokens.repository.ts" */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type stringArray = (string)[];

/** 'HeldLanguages' parameters type */
export interface IHeldLanguagesParams {
  exceptIdentity?: string | null | void;
  organizationId: string;
  roomId: string;
}

/** 'HeldLanguages' return type */
export interface IHeldLanguagesResult {
  languages: stringArray;
}

/** 'HeldLanguages' query type */
export interface IHeldLanguagesQuery {
  params: IHeldLanguagesParams;
  result: IHeldLanguagesResult;
}

/** 'IssuedLanguages' parameters type */
export interface IIssuedLanguagesParams {
  organizationId: string;
  roomId: string;
}

/** 'IssuedLanguages' return type */
export interface IIssuedLanguagesResult {
  languages: stringArray;
}

/** 'IssuedLanguages' query type */
export interface IIssuedLanguagesQuery {
  params: IIssuedLanguagesParams;
  result: IIssuedLanguagesResult;
}

/** 'ReserveToken' parameters type */
export interface IReserveTokenParams {
  displayName?: string | null | void;
  identity: string;
  kind: string;
  languages: stringArray;
  organizationId: string;
  reserveSeconds: number;
  roomId: string;
}

/** 'ReserveToken' return type */
export type IReserveTokenResult = void;

/** 'ReserveToken' query type */
export interface IReserveTokenQuery {
  params: IReserveTokenParams;
  result: IReserveTokenResult;
}

/** 'AdmitShared' parameters type */
export interface IAdmitSharedParams {
  requests: Json;
  reserveSeconds: number;
}

/** 'AdmitShared' return type */
export interface IAdmitSharedResult {
  admitted: boolean;
  livekit_name: string;
  ord: number;
  room_id: string;
  room_name: string;
  streaming_mode: string | null;
}

/** 'AdmitShared' query type */
export interface IAdmitSharedQuery {
  params: IAdmitSharedParams;
  result: IAdmitSharedResult;
}

/** 'ReleaseReservations' parameters type */
export interface IReleaseReservationsParams {
  identities: stringArray;
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'ReleaseReservations' return type */
export interface IReleaseReservationsResult {
  identity: string;
  kind: string;
  languages: stringArray;
  room_id: string;
}

/** 'ReleaseReservations' query type */
export interface IReleaseReservationsQuery {
  params: IReleaseReservationsParams;
  result: IReleaseReservationsResult;
}

