/** Types generated for queries found in "apps/api/src/modules/glossaries/glossary-delivery.repository.ts" */

/** 'HoldChangesBack' parameters type */
export interface IHoldChangesBackParams {
  organizationId: string;
}

/** 'HoldChangesBack' return type */
export interface IHoldChangesBackResult {
  pg_advisory_xact_lock_shared: undefined | null;
}

/** 'HoldChangesBack' query type */
export interface IHoldChangesBackQuery {
  params: IHoldChangesBackParams;
  result: IHoldChangesBackResult;
}

/** 'HoldDeliveriesBack' parameters type */
export interface IHoldDeliveriesBackParams {
  organizationId: string;
}

/** 'HoldDeliveriesBack' return type */
export interface IHoldDeliveriesBackResult {
  pg_advisory_xact_lock: undefined | null;
}

/** 'HoldDeliveriesBack' query type */
export interface IHoldDeliveriesBackQuery {
  params: IHoldDeliveriesBackParams;
  result: IHoldDeliveriesBackResult;
}

/** 'TranslatorRooms' parameters type */
export interface ITranslatorRoomsParams {
  organizationId: string;
}

/** 'TranslatorRooms' return type */
export interface ITranslatorRoomsResult {
  id: string;
  livekit_name: string;
  translator_generation: number;
}

/** 'TranslatorRooms' query type */
export interface ITranslatorRoomsQuery {
  params: ITranslatorRoomsParams;
  result: ITranslatorRoomsResult;
}

