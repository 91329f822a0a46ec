/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a JSON object, else null (for reading untrusted payloads field by field). */
export function asJsonObject(value: unknown): Record<string, unknown> | null {
  return isJsonObject(value) ? value : null;
}

const LONE_SURROGATE = /\p{Cs}/u;

/** Whether the text holds an unpaired UTF-16 surrogate ("\ud800" is valid JSON, but not text PostgreSQL can store). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Text PostgreSQL can store: no U+0000 and no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !hasLoneSurrogate(text);
}

/**
 * Whether parsed JSON stays within limits, walked without recursion (a payload nested thousands deep
 * must not overflow the stack): no object or array more than `maxDepth` levels below the top value,
 * and every string, key or value, accepted by `acceptText`.
 */
export function withinJsonLimits(value: unknown, maxDepth: number, acceptText: (text: string) => boolean = () => true): boolean {
  return jsonShapeViolation(value, { maxDepth, acceptText }) === null;
}

export interface JsonShapeLimits {
  maxDepth: number;
  /** Most members of one object or items of one array. */
  maxMembers?: number;
  acceptText?: (text: string) => boolean;
}

export type JsonShapeViolation = { kind: 'depth' } | { kind: 'members'; count: number } | { kind: 'text' };

/** The first limit a parsed JSON value breaks, or null; linear in its size, stopping at the first breach. */
export function jsonShapeViolation(value: unknown, limits: JsonShapeLimits): JsonShapeViolation | null {
  const { maxDepth, maxMembers = Infinity, acceptText = () => true } = limits;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item === 'string') {
      if (!acceptText(item)) return { kind: 'text' };
    } else if (typeof item === 'object' && item !== null) {
      if (depth > maxDepth) return { kind: 'depth' };
      const keys = Object.keys(item);
      if (keys.length > maxMembers) return { kind: 'members', count: keys.length };
      for (const key of keys) {
        if (!acceptText(key)) return { kind: 'text' };
        pending.push([(item as Record<string, unknown>)[key], depth + 1]);
      }
    }
  }
  return null;
}

const ECHO_MEMBERS = 16;
const ECHO_TEXT = 200;
const ECHO_DEPTH = 4;

/**
 * What a 422 may echo of an input: the input itself when small, else a short prefix of it (the first
 * members of objects and arrays, the first characters of strings, a few levels deep), so an error
 * answer never grows with the size of an attacker's body.
 */
export function echoPrefix(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > ECHO_TEXT ? value.slice(0, ECHO_TEXT) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= ECHO_DEPTH) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) return value.slice(0, ECHO_MEMBERS).map((item) => echoPrefix(item, depth + 1));
  const echoed: Record<string, unknown> = {};
  let count = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (count++ === ECHO_MEMBERS) break;
    echoed[key.length > ECHO_TEXT ? key.slice(0, ECHO_TEXT) : key] = echoPrefix((value as Record<string, unknown>)[key], depth + 1);
  }
  return echoed;
}
