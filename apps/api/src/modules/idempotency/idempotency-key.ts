import { createHash } from 'node:crypto';
import type { ValidationIssue } from '../../common/errors/validation-error';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** The issue of a malformed `Idempotency-Key` (1–255 printable ASCII characters), or null when it is well formed. */
export function keyIssue(key: string): ValidationIssue | null {
  const loc = ['header', IDEMPOTENCY_HEADER];
  if (key.length === 0) {
    return { loc, msg: 'String should have at least 1 character', type: 'string_too_short', input: key, ctx: { min_length: 1 } };
  }
  if (key.length > 255) {
    return { loc, msg: 'String should have at most 255 characters', type: 'string_too_long', input: key, ctx: { max_length: 255 } };
  }
  if (!PRINTABLE_ASCII.test(key)) {
    return {
      loc,
      msg: "String should match pattern '^[\\x20-\\x7e]+$' (printable ASCII)",
      type: 'string_pattern_mismatch',
      input: key,
      ctx: { pattern: '^[\\x20-\\x7e]+$' },
    };
  }
  return null;
}

/** JSON with object keys sorted, so two bodies that parse to the same value compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a reuse of the key must repeat: method, path and body (compared after JSON parsing; no body = `{}`). */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonical(body ?? {})}`)
    .digest('hex');
}
