/** Types generated for queries found in "apps/api/src/modules/invites/invites.repository.ts" */
export type BufferArray = (Buffer)[];

export type DateOrString = Date | string;

export type stringArray = (string)[];

/** 'Previews' parameters type */
export interface IPreviewsParams {
  codeHashes: BufferArray;
}

/** 'Previews' return type */
export interface IPreviewsResult {
  code_hash: Buffer;
  expires_at: Date;
  held: stringArray;
  max_uses: number;
  room_status: string;
  streaming_mode: string | null;
  uses: number;
}

/** 'Previews' query type */
export interface IPreviewsQuery {
  params: IPreviewsParams;
  result: IPreviewsResult;
}

/** 'Find' parameters type */
export interface IFindParams {
  codeHash: Buffer;
}

/** 'Find' return type */
export interface IFindResult {
  expires_at: Date;
  id: string;
  max_uses: number;
  organization_id: string;
  room_id: string;
  room_status: string;
  streaming_mode: string | null;
  uses: number;
}

/** 'Find' query type */
export interface IFindQuery {
  params: IFindParams;
  result: IFindResult;
}

/** 'FindForUpdate' parameters type */
export interface IFindForUpdateParams {
  codeHash: Buffer;
}

/** 'FindForUpdate' return type */
export interface IFindForUpdateResult {
  expires_at: Date;
  id: string;
  max_uses: number;
  organization_id: string;
  room_id: string;
  room_status: string;
  streaming_mode: string | null;
  uses: number;
}

/** 'FindForUpdate' query type */
export interface IFindForUpdateQuery {
  params: IFindForUpdateParams;
  result: IFindForUpdateResult;
}

/** 'RoomStatus' parameters type */
export interface IRoomStatusParams {
  organizationId: string;
  roomId: string;
}

/** 'RoomStatus' return type */
export interface IRoomStatusResult {
  status: string;
}

/** 'RoomStatus' query type */
export interface IRoomStatusQuery {
  params: IRoomStatusParams;
  result: IRoomStatusResult;
}

/** 'Insert' parameters type */
export interface IInsertParams {
  codeHash: Buffer;
  expiresAt: DateOrString;
  maxUses: number;
  organizationId: string;
  roomId: string;
}

/** 'Insert' return type */
export interface IInsertResult {
  expires_at: Date;
}

/** 'Insert' query type */
export interface IInsertQuery {
  params: IInsertParams;
  result: IInsertResult;
}

/** 'RevokeAll' parameters type */
export interface IRevokeAllParams {
  organizationId: string;
  roomId: string;
}

/** 'RevokeAll' return type */
export type IRevokeAllResult = void;

/** 'RevokeAll' query type */
export interface IRevokeAllQuery {
  params: IRevokeAllParams;
  result: IRevokeAllResult;
}

/** 'SpendUse' parameters type */
export interface ISpendUseParams {
  inviteId: string;
  organizationId: string;
}

/** 'SpendUse' return type */
export type ISpendUseResult = void;

/** 'SpendUse' query type */
export interface ISpendUseQuery {
  params: ISpendUseParams;
  result: ISpendUseResult;
}

