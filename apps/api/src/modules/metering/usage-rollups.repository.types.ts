/** Types generated for queries found in "apps/api/src/modules/metering/usage-rollups.repository.ts" */
export type NumberOrString = number | string;

export type stringArray = (string)[];

/** 'CountedRooms' parameters type */
export interface ICountedRoomsParams {
  organizationIds: stringArray;
  roomIds: stringArray;
}

/** 'CountedRooms' return type */
export interface ICountedRoomsResult {
  id: string;
  minutes: number;
  organization_id: string;
  participants: number;
  started_at: Date | null;
}

/** 'CountedRooms' query type */
export interface ICountedRoomsQuery {
  params: ICountedRoomsParams;
  result: ICountedRoomsResult;
}

/** 'AddToSlot' parameters type */
export interface IAddToSlotParams {
  minutes: NumberOrString;
  organizationId: string;
  participants: number;
  sessions: number;
  slotSeconds: number;
}

/** 'AddToSlot' return type */
export type IAddToSlotResult = void;

/** 'AddToSlot' query type */
export interface IAddToSlotQuery {
  params: IAddToSlotParams;
  result: IAddToSlotResult;
}

/** 'BumpVersion' parameters type */
export interface IBumpVersionParams {
  organizationId: string;
  writes: NumberOrString;
}

/** 'BumpVersion' return type */
export type IBumpVersionResult = void;

/** 'BumpVersion' query type */
export interface IBumpVersionQuery {
  params: IBumpVersionParams;
  result: IBumpVersionResult;
}

