import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { RequestValidationError, type ValidationIssue } from '../errors/validation-error';
import { echoPrefix, isJsonObject, jsonShapeViolation } from '../json/json-shape';
import { reservedKeyIssues } from './reserved-keys';
import { intTypeIssue, type IssueContext } from './rules';

/** A DTO class may add rules class-validator cannot express (e.g. several issues for one list). */
export interface MoreRules {
  moreIssues(
    instance: object,
    failedProperties: ReadonlySet<string>,
    /** The input as received (for a field the DTO keeps out of class-transformer, e.g. a large list). */
    raw: Readonly<Record<string, unknown>>,
  ): { loc: (string | number)[]; msg: string; type: string; input: unknown; ctx?: Record<string, unknown> }[];
}

const LOCATION: Record<ArgumentMetadata['type'], string> = { body: 'body', query: 'query', param: 'path', custom: 'body' };

function contextOf(error: ValidationError, constraint: string): IssueContext {
  const context: unknown = error.contexts?.[constraint];
  if (isJsonObject(context) && context.dynamic === 'int') return intTypeIssue(error.value);
  if (isJsonObject(context) && typeof context.type === 'string') return context as unknown as IssueContext;
  return { type: 'value_error', msg: `Value error, ${error.constraints?.[constraint] ?? 'invalid value'}`, rank: 9 };
}

/** The one most fundamental failure of a field: missing before wrong type before out of bounds. */
function issueOf(error: ValidationError, location: string, raw: Record<string, unknown>): ValidationIssue {
  let contexts = Object.keys(error.constraints ?? {}).map((name) => contextOf(error, name));
  // A field sent as null is there: as in Pydantic, its type is what is wrong, not its absence.
  if (error.property in raw) contexts = contexts.filter((context) => context.type !== 'missing');
  contexts.sort((a, b) => a.rank - b.rank);
  const chosen = contexts[0];
  const missing = chosen.type === 'missing';
  return {
    loc: [location, error.property],
    msg: chosen.msg,
    type: chosen.type,
    input: missing ? (location === 'body' ? raw : null) : raw[error.property],
    ctx: chosen.ctx ?? {},
  };
}

/**
 * Field positions in the request schema: a base class's fields before its subclass's (class-validator
 * itself lists a subclass's own fields first), each class's in declaration order.
 */
const fieldOrders = new WeakMap<object, Map<string, number>>();

function fieldOrderOf(metatype: new () => object): Map<string, number> {
  const cached = fieldOrders.get(metatype);
  if (cached) return cached;
  const chain: unknown[] = [];
  for (let type: unknown = metatype; typeof type === 'function' && type !== Function.prototype; type = Object.getPrototypeOf(type)) {
    chain.unshift(type);
  }
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
  const depth = (target: unknown) => chain.indexOf(target);
  const ordered = metadatas
    .map((metadata, i) => ({ name: metadata.propertyName, depth: depth(metadata.target), i }))
    .sort((a, b) => a.depth - b.depth || a.i - b.i);
  const order = new Map<string, number>();
  for (const { name } of ordered) if (!order.has(name)) order.set(name, order.size);
  fieldOrders.set(metatype, order);
  return order;
}

/** class-transformer recurses through the input: a body nested thousands deep would overflow the stack. */
const MAX_NESTING = 64;
/**
 * Most members of one object or items of one array in any input. The largest legitimate input has a
 * handful of fields and two languages; bounding the count before class-transformer copies the input
 * keeps validation linear and cheap whatever an attacker sends.
 */
export const MAX_INPUT_MEMBERS = 64;

/** A DTO class whose input may hold more members than MAX_INPUT_MEMBERS (a list of glossary entries). */
export interface MoreMembers {
  readonly maxInputMembers: number;
}

/**
 * The one issue of an input whose shape is out of bounds, or null when validation may look at it. Also
 * for a route that takes its body as a plain value (not a DTO) and validates it itself.
 */
export function shapeIssue(raw: unknown, location: string, maxMembers = MAX_INPUT_MEMBERS): ValidationIssue | null {
  const violation = jsonShapeViolation(raw, { maxDepth: MAX_NESTING, maxMembers });
  if (violation === null) return null;
  if (violation.kind === 'members') {
    return {
      loc: [location],
      msg: `Input should have at most ${maxMembers} members in any object or list, not ${violation.count}`,
      type: 'too_long',
      input: echoPrefix(raw),
      ctx: { max_length: maxMembers, actual_length: violation.count },
    };
  }
  const error = `nested deeper than ${MAX_NESTING} levels`;
  return { loc: [location], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error } };
}

/** The value a pipe receives for one parameter and how it was declared. */
export interface InputToValidate {
  value: unknown;
  metatype: unknown;
  type: ArgumentMetadata['type'];
}

/** The DTO class of a parameter this project validates; null for plain values and custom decorators. */
const PLAIN_TYPES = new Set<unknown>([String, Number, Boolean, Array, Object]);

function dtoOf({ metatype, type }: InputToValidate): (new () => object) | null {
  return typeof metatype === 'function' && !PLAIN_TYPES.has(metatype) && type !== 'custom' ? (metatype as new () => object) : null;
}

/** Every violated field of one input (body, query or path), in the order of the request schema. */
export function inputIssues(input: InputToValidate): { instance: object | null; issues: ValidationIssue[] } {
  const metatype = dtoOf(input);
  const { value } = input;
  if (!metatype) return { instance: null, issues: [] };
  const location = LOCATION[input.type];
  // Only an absent body is an empty object: JSON `null` or `""` was sent, and is not an object.
  const raw = value === undefined ? {} : value;
  if (!isJsonObject(raw)) {
    const issue = {
      loc: [location],
      msg: 'Input should be a valid dictionary or object to extract fields from',
      type: 'model_attributes_type',
    };
    return { instance: null, issues: [{ ...issue, input: raw, ctx: {} }] };
  }
  const tooLarge = shapeIssue(raw, location, (metatype as Partial<MoreMembers>).maxInputMembers);
  if (tooLarge) return { instance: null, issues: [tooLarge] };
  // JSON bodies are refused on arrival (readBodies); this keeps any other input from class-transformer too.
  const reserved = reservedKeyIssues(raw, location);
  if (reserved.length > 0) return { instance: null, issues: reserved };
  const instance: object = plainToInstance(metatype, raw);
  const errors = validateSync(instance, { forbidUnknownValues: false });
  const issues = errors.map((error) => issueOf(error, location, raw));
  const failed = new Set(errors.map((error) => error.property));
  const more = (metatype as Partial<MoreRules>).moreIssues?.(instance, failed, raw) ?? [];
  issues.push(...more.map((issue) => ({ ...issue, loc: [location, ...issue.loc], ctx: issue.ctx ?? {} })));
  if (issues.length > 1) {
    const order = fieldOrderOf(metatype);
    const position = (issue: ValidationIssue) => order.get(String(issue.loc[1])) ?? order.size;
    issues.sort((a, b) => position(a) - position(b));
  }
  return { instance, issues };
}

/** Turns body, query and path input into DTO instances, or fails with every violated field listed. */
@Injectable()
export class InputValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // A custom decorator's value (the actor) is ours, not the client's: Nest pipes it here too.
    if (metadata.type === 'custom') return value;
    const { instance, issues } = inputIssues({ value, metatype: metadata.metatype, type: metadata.type });
    if (issues.length > 0) throw new RequestValidationError(issues);
    return instance ?? value;
  }
}
