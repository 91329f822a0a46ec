/** Types generated for queries found in "apps/api/src/modules/auth/stream-tickets.repository.ts" */
export type stringArray = (string)[];

/** 'InsertTicket' parameters type */
export interface IInsertTicketParams {
  apiKeyId?: string | null | void;
  organizationId: string;
  seconds: number;
  ticketHash: Buffer;
  userId: string;
}

/** 'InsertTicket' return type */
export interface IInsertTicketResult {
  expires_at: Date;
}

/** 'InsertTicket' query type */
export interface IInsertTicketQuery {
  params: IInsertTicketParams;
  result: IInsertTicketResult;
}

/** 'Redeem' parameters type */
export interface IRedeemParams {
  ticketHash: Buffer;
}

/** 'Redeem' return type */
export interface IRedeemResult {
  api_key_id: string | null;
  email: string;
  first_name: string;
  image_url: string;
  key_live: boolean;
  last_name: string;
  organization_id: string;
  role: string;
  scopes: stringArray | null;
  user_created_at: Date;
  user_id: string;
}

/** 'Redeem' query type */
export interface IRedeemQuery {
  params: IRedeemParams;
  result: IRedeemResult;
}

/** 'TicketState' parameters type */
export interface ITicketStateParams {
  ticketHash: Buffer;
}

/** 'TicketState' return type */
export interface ITicketStateResult {
  expires_at: Date;
  used_at: Date | null;
}

/** 'TicketState' query type */
export interface ITicketStateQuery {
  params: ITicketStateParams;
  result: ITicketStateResult;
}

/** 'DeleteSpent' parameters type */
export type IDeleteSpentParams = void;

/** 'DeleteSpent' return type */
export type IDeleteSpentResult = void;

/** 'DeleteSpent' query type */
export interface IDeleteSpentQuery {
  params: IDeleteSpentParams;
  result: IDeleteSpentResult;
}

