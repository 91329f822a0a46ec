/** Types generated for queries found in "apps/api/src/modules/metrics/metrics.repository.ts" */

/** 'UnappliedAges' parameters type */
export type IUnappliedAgesParams = void;

/** 'UnappliedAges' return type */
export interface IUnappliedAgesResult {
  provider: string;
  seconds: number;
}

/** 'UnappliedAges' query type */
export interface IUnappliedAgesQuery {
  params: IUnappliedAgesParams;
  result: IUnappliedAgesResult;
}

/** 'ActiveRooms' parameters type */
export type IActiveRoomsParams = void;

/** 'ActiveRooms' return type */
export interface IActiveRoomsResult {
  n: number;
}

/** 'ActiveRooms' query type */
export interface IActiveRoomsQuery {
  params: IActiveRoomsParams;
  result: IActiveRoomsResult;
}

/** 'OpenConnections' parameters type */
export type IOpenConnectionsParams = void;

/** 'OpenConnections' return type */
export interface IOpenConnectionsResult {
  n: number;
}

/** 'OpenConnections' query type */
export interface IOpenConnectionsQuery {
  params: IOpenConnectionsParams;
  result: IOpenConnectionsResult;
}

