/**
 * The one serializer for JSON that PostgreSQL already wrote: such text is placed into the answer as it
 * is, never parsed and written again (a billing history page can carry thousands of connections).
 * `JSON.rawJSON` would do this, but Node 20 does not have it. The answer is exactly what
 * `JSON.stringify` would write for the same value.
 */

/** `objectJson` (an object's JSON text) with `"key": rawValue` as its last member; `rawValue` is JSON text. */
export function withRawMember(objectJson: string, key: string, rawValue: string): string {
  if (!objectJson.endsWith('}')) throw new TypeError('withRawMember takes the JSON text of an object');
  const separator = objectJson === '{}' ? '' : ',';
  return `${objectJson.slice(0, -1)}${separator}${JSON.stringify(key)}:${rawValue}}`;
}

/** A JSON object of members whose values are JSON texts already, in this order. */
export function rawObject(members: readonly (readonly [key: string, rawValue: string])[]): string {
  return `{${members.map(([key, rawValue]) => `${JSON.stringify(key)}:${rawValue}`).join(',')}}`;
}

/** A JSON array of elements that are JSON texts already. */
export function rawArray(elementsJson: readonly string[]): string {
  return `[${elementsJson.join(',')}]`;
}
