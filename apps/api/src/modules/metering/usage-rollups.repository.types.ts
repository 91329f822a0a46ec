/** Types generated for queries found in "apps/api/src/modules/metering/usage-rollups.repository.ts" */
export type numberArray = (number)[];

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

/** 'AddToSlots' parameters type */
export interface IAddToSlotsParams {
  minutes: numberArray;
  organizationId: string;
  participants: numberArray;
  sessions: numberArray;
  slotSeconds: numberArray;
  writes: number;
}

/** 'AddToSlots' return type */
export type IAddToSlotsResult = void;

/** 'AddToSlots' query type */
export interface IAddToSlotsQuery {
  params: IAddToSlotsParams;
  result: IAddToSlotsResult;
}

