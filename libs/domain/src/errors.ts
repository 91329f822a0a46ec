/**
 * Base of every rule violation the domain reports. `code` is stable and machine-readable;
 * the API maps codes to HTTP statuses in one place. `message` is one human sentence, safe to show.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  protected constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** One violated input field, shaped for the 422 body (`loc` is relative: the API prefixes `body`/`query`). */
export interface FieldIssue {
  loc: readonly (string | number)[];
  /** Pydantic-style error type, e.g. `missing`, `enum`, `timezone_aware`. */
  type: string;
  msg: string;
  input: unknown;
  ctx?: Readonly<Record<string, unknown>>;
}

/** Several invalid input fields at once (422). Every violated field is listed, not only the first. */
export class DomainValidationError extends DomainError {
  readonly code = 'validation_failed';

  constructor(readonly issues: readonly FieldIssue[]) {
    super(issues.map((issue) => issue.msg).join(' '));
  }
}

export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };
