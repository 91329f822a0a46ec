/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a JSON object, else null (for reading untrusted payloads field by field). */
export function asJsonObject(value: unknown): Record<string, unknown> | null {
  return isJsonObject(value) ? value : null;
}

/**
 * Whether parsed JSON stays within limits, walked without recursion (a payload nested thousands deep
 * must not overflow the stack): no object or array more than `maxDepth` levels below the top value,
 * and every string, key or value, accepted by `acceptText`.
 */
export function withinJsonLimits(value: unknown, maxDepth: number, acceptText: (text: string) => boolean = () => true): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item === 'string') {
      if (!acceptText(item)) return false;
    } else if (typeof item === 'object' && item !== null) {
      if (depth > maxDepth) return false;
      for (const [key, child] of Object.entries(item)) {
        if (!acceptText(key)) return false;
        pending.push([child, depth + 1]);
      }
    }
  }
  return true;
}
