import type { ValidationIssue } from './validation-error';

/** What the exception filter answers for an error: status, `{"detail"}` body and extra headers. */
export interface Answer {
  status: number;
  body: { detail: string | ValidationIssue[] };
  headers?: Record<string, string>;
}
