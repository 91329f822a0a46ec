/** Types generated for queries found in "apps/api/src/modules/invites/invites.repository.ts" */
export type BufferArray = (Buffer)[];

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

