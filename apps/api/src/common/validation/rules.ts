import { Transform } from 'class-transformer';
import { hasLoneSurrogate } from '../json/json-shape';
import { IsBoolean, IsDefined, IsIn, IsOptional, IsString, IsUUID, Matches, Max, Min, isURL, ValidateBy } from 'class-validator';

/**
 * Field rules that report Pydantic-style issues. Each constraint carries its issue in the
 * class-validator `context`, so the pipe turns failures into the 422 body without parsing messages.
 * `rank` orders the constraints of one field: only the most fundamental failure is reported.
 * Every rule needs a non-empty message: class-validator attaches contexts to truthy messages only.
 */
export interface IssueContext {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
  rank: number;
}

const issue = (context: IssueContext) => ({ context });

const MISSING: IssueContext = { type: 'missing', msg: 'Field required', rank: 0 };

/** A required field. (Sent as null, it is reported by its type rule instead: see the pipe's issueOf.) */
export function Required(): PropertyDecorator {
  return IsDefined(issue(MISSING));
}

/** Characters as PostgreSQL and Pydantic count them: code points (class-validator skips some variation selectors). */
const codePoints = (value: unknown) => (typeof value === 'string' ? [...value].length : 0);

/** Query strings arrive as text: parse whole numbers strictly and leave anything else as it was. */
const toIntIfWhole = Transform(({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value,
);

function intTypeIssue(value: unknown): IssueContext {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part', rank: 1 };
  }
  if (typeof value === 'string') {
    return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer', rank: 1 };
  }
  return { type: 'int_type', msg: 'Input should be a valid integer', rank: 1 };
}

export interface IntRuleOptions {
  min?: number;
  max?: number;
  optional?: boolean;
  /** Query values are strings and get parsed; JSON bodies must carry real integers. */
  fromQuery?: boolean;
}

export function IntRule(options: IntRuleOptions): PropertyDecorator {
  return (target, key) => {
    if (options.fromQuery) toIntIfWhole(target, key);
    if (options.optional) IsOptional()(target, key);
    else Required()(target, key);
    ValidateBy(
      {
        name: 'isWholeNumber',
        validator: {
          // Any whole number is an integer, however large: bounds (rank 2) then say whether it is in range.
          validate: (value: unknown) => Number.isInteger(value),
          defaultMessage: () => 'not an integer',
        },
      },
      { context: { dynamic: 'int' } },
    )(target, key);
    if (options.min !== undefined) {
      const min = options.min;
      Min(
        min,
        issue({
          type: 'greater_than_equal',
          msg: `Input should be greater than or equal to ${min}`,
          ctx: { ge: min },
          rank: 2,
        }),
      )(target, key);
    }
    if (options.max !== undefined) {
      Max(
        options.max,
        issue({ type: 'less_than_equal', msg: `Input should be less than or equal to ${options.max}`, ctx: { le: options.max }, rank: 2 }),
      )(target, key);
    }
  };
}

export { intTypeIssue };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export interface StringRuleOptions {
  minLength?: number;
  maxLength?: number;
  optional?: boolean;
  pattern?: { regex: RegExp; description: string };
}

export function StringRule(options: StringRuleOptions): PropertyDecorator {
  return (target, key) => {
    if (options.optional) IsOptional()(target, key);
    else Required()(target, key);
    IsString(issue({ type: 'string_type', msg: 'Input should be a valid string', rank: 1 }))(target, key);
    if (options.minLength !== undefined) {
      const n = options.minLength;
      ValidateBy(
        { name: 'minCodePoints', validator: { validate: (value: unknown) => codePoints(value) >= n, defaultMessage: () => 'too short' } },
        issue({ type: 'string_too_short', msg: `String should have at least ${plural(n, 'character')}`, ctx: { min_length: n }, rank: 2 }),
      )(target, key);
    }
    if (options.maxLength !== undefined) {
      const n = options.maxLength;
      ValidateBy(
        { name: 'maxCodePoints', validator: { validate: (value: unknown) => codePoints(value) <= n, defaultMessage: () => 'too long' } },
        issue({ type: 'string_too_long', msg: `String should have at most ${plural(n, 'character')}`, ctx: { max_length: n }, rank: 2 }),
      )(target, key);
    }
    // PostgreSQL text cannot hold U+0000: refused here, not as a server error on insert.
    ValidateBy(
      {
        name: 'noNul',
        validator: { validate: (value: unknown) => typeof value !== 'string' || !value.includes('\u0000'), defaultMessage: () => 'NUL' },
      },
      issue({
        type: 'string_pattern_mismatch',
        msg: "String should not contain the NUL character ('\\u0000')",
        ctx: { pattern: '[^\\x00]*' },
        rank: 3,
      }),
    )(target, key);
    // Nor an unpaired UTF-16 surrogate ("\ud800" is valid JSON, but not text PostgreSQL can store).
    ValidateBy(
      {
        name: 'wellFormedUnicode',
        validator: {
          validate: (value: unknown) => typeof value !== 'string' || !hasLoneSurrogate(value),
          defaultMessage: () => 'surrogate',
        },
      },
      issue({ type: 'string_unicode', msg: 'Input should be a valid string, unable to parse raw data as a unicode string', rank: 3 }),
    )(target, key);
    if (options.pattern) {
      const { regex, description } = options.pattern;
      Matches(
        regex,
        issue({
          type: 'string_pattern_mismatch',
          msg: `String should match pattern '${regex.source}' (${description})`,
          ctx: { pattern: regex.source },
          rank: 3,
        }),
      )(target, key);
    }
  };
}

export function expectedList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

export function EnumRule(values: readonly string[], options: { optional?: boolean } = {}): PropertyDecorator {
  return (target, key) => {
    if (options.optional) IsOptional()(target, key);
    else Required()(target, key);
    const expected = expectedList(values);
    IsIn([...values], issue({ type: 'enum', msg: `Input should be ${expected}`, ctx: { expected }, rank: 1 }))(target, key);
  };
}

/** A JSON boolean (`true` or `false`; nothing else stands for one). */
export function BoolRule(options: { optional?: boolean } = {}): PropertyDecorator {
  return (target, key) => {
    if (options.optional) IsOptional()(target, key);
    else Required()(target, key);
    IsBoolean(issue({ type: 'bool_type', msg: 'Input should be a valid boolean', rank: 1 }))(target, key);
  };
}

/** A UUID in capitals or without hyphens (as Pydantic accepts them) in its usual form; anything else as it was. */
export const withUuidHyphens = Transform(({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  if (/^[0-9a-f]{32}$/i.test(value)) {
    return `${value.slice(0, 8)}-${value.slice(8, 12)}-${value.slice(12, 16)}-${value.slice(16, 20)}-${value.slice(20)}`.toLowerCase();
  }
  return /^[0-9a-f-]{36}$/i.test(value) ? value.toLowerCase() : value;
});

export function UuidRule(options: { optional?: boolean } = {}): PropertyDecorator {
  return (target, key) => {
    withUuidHyphens(target, key);
    if (options.optional) IsOptional()(target, key);
    else Required()(target, key);
    IsUUID('all', issue({ type: 'uuid_parsing', msg: 'Input should be a valid UUID', rank: 1 }))(target, key);
  };
}

export function HttpUrlRule(options: { minLength: number; maxLength: number; optional?: boolean }): PropertyDecorator {
  return (target, key) => {
    StringRule(options)(target, key);
    ValidateBy(
      {
        name: 'isHttpUrl',
        validator: {
          validate: (value: unknown) =>
            typeof value === 'string' && isURL(value, { protocols: ['http', 'https'], require_protocol: true, require_tld: false }),
          defaultMessage: () => 'not an absolute http(s) URL',
        },
      },
      issue({ type: 'url_parsing', msg: 'Input should be a valid absolute http(s) URL', rank: 3 }),
    )(target, key);
  };
}

/** The issues of an optional list whose every item must be one of `values` (at least one item). */
export function enumListIssues(field: string, list: unknown, values: readonly string[]) {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return [{ loc: [field], msg: 'Input should be a valid list', type: 'list_type', input: list }];
  if (list.length === 0) {
    return [
      {
        loc: [field],
        msg: 'List should have at least 1 item after validation, not 0',
        type: 'too_short',
        input: list,
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ];
  }
  const expected = expectedList(values);
  return list.flatMap((value: unknown, i) =>
    typeof value === 'string' && values.includes(value)
      ? []
      : [{ loc: [field, i], msg: `Input should be ${expected}`, type: 'enum', input: value, ctx: { expected } }],
  );
}
