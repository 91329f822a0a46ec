import type { ValidationIssue } from '../errors/validation-error';

/**
 * Keys no input of this API has, and that mean something to JavaScript objects: class-transformer
 * takes an object's `constructor` member for its class (`{"name": {"constructor": 1}}` was a 500,
 * "targetType is not a constructor") and silently drops `__proto__`.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['constructor', '__proto__', 'prototype']);
/** Most issues one answer lists: a 16 KiB body could hold a thousand such keys, the answer stays small. */
const MAX_ISSUES = 16;

/** A member met in the walk: its key, and its parent's (the path is built only for an issue). */
interface Member {
  key: string | number;
  parent: Member | null;
  value: unknown;
}

const pathOf = (member: Member): (string | number)[] => {
  const path: (string | number)[] = [];
  for (let at: Member | null = member; at !== null; at = at.parent) path.push(at.key);
  return path.reverse();
};

/**
 * One 422 issue per reserved key anywhere in a parsed JSON input, at its path (`["body","name","constructor"]`),
 * in document order. Walked without recursion and linear in the input's size, however deep it is nested.
 */
export function reservedKeyIssues(value: unknown, location: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const pending: Member[] = [{ key: location, parent: null, value }];
  for (let next = pending.pop(); next !== undefined && issues.length < MAX_ISSUES; next = pending.pop()) {
    if (next.parent !== null && typeof next.key === 'string' && RESERVED_KEYS.has(next.key)) {
      const msg = `Extra inputs are not permitted: "${next.key}" is a reserved key`;
      issues.push({ loc: pathOf(next), msg, type: 'extra_forbidden', input: next.value, ctx: {} });
      continue;
    }
    const item = next.value;
    if (typeof item !== 'object' || item === null) continue;
    const members: [string | number, unknown][] = Array.isArray(item) ? item.map((element, i) => [i, element]) : Object.entries(item);
    // Pushed last first, so that they are visited in document order.
    for (let i = members.length - 1; i >= 0; i--) pending.push({ key: members[i][0], parent: next, value: members[i][1] });
  }
  return issues;
}
