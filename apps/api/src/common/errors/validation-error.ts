/** One entry of the 422 body, field for field as the interface describes it. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

export class RequestValidationError extends Error {
  constructor(
    readonly issues: ValidationIssue[],
    /** The issues already cover the whole request (path, query, body and more): answered as they are. */
    readonly complete = false,
  ) {
    super('Request validation failed');
  }
}
