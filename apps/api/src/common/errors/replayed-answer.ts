/** A remembered answer to send again as it was (by the error filter, which every early answer goes through). */
export class ReplayedAnswer extends Error {
  constructor(
    readonly statusCode: number,
    readonly contentType: string | null,
    readonly body: string,
  ) {
    super('Replayed idempotent answer');
  }
}
