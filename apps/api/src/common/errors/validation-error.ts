/** One entry of the 422 body, field for field as the interface describes it. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

export class RequestValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super('Request validation failed');
  }
}
