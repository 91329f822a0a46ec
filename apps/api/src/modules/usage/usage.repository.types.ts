/** Types generated for queries found in "apps/api/src/modules/usage/usage.repository.ts" */
export type DateOrString = Date | string;

/** 'SlotsByUtcHour' parameters type */
export interface ISlotsByUtcHourParams {
  from: DateOrString;
  organizationId: string;
  to: DateOrString;
}

/** 'SlotsByUtcHour' return type */
export interface ISlotsByUtcHourResult {
  at: number;
  minutes: number;
  participants: number;
  sessions: number;
}

/** 'SlotsByUtcHour' query type */
export interface ISlotsByUtcHourQuery {
  params: ISlotsByUtcHourParams;
  result: ISlotsByUtcHourResult;
}

/** 'SlotsByLocalBucket' parameters type */
export interface ISlotsByLocalBucketParams {
  from: DateOrString;
  granularity: string;
  organizationId: string;
  timezone: string;
  to: DateOrString;
}

/** 'SlotsByLocalBucket' return type */
export interface ISlotsByLocalBucketResult {
  at: number;
  minutes: number;
  participants: number;
  sessions: number;
}

/** 'SlotsByLocalBucket' query type */
export interface ISlotsByLocalBucketQuery {
  params: ISlotsByLocalBucketParams;
  result: ISlotsByLocalBucketResult;
}

/** 'WindowEdges' parameters type */
export interface IWindowEdgesParams {
  firstFrom: DateOrString;
  firstTo: DateOrString;
  organizationId: string;
  secondFrom: DateOrString;
  secondTo: DateOrString;
}

/** 'WindowEdges' return type */
export interface IWindowEdgesResult {
  at: Date;
  minutes: number;
  participants: number;
  sessions: number;
}

/** 'WindowEdges' query type */
export interface IWindowEdgesQuery {
  params: IWindowEdgesParams;
  result: IWindowEdgesResult;
}

