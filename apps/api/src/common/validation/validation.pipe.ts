import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { RequestValidationError, type ValidationIssue } from '../errors/validation-error';
import { intTypeIssue, type IssueContext } from './rules';

/** A DTO class may add rules class-validator cannot express (e.g. several issues for one list). */
export interface MoreRules {
  moreIssues(
    instance: object,
    failedProperties: ReadonlySet<string>,
  ): { loc: (string | number)[]; msg: string; type: string; input: unknown; ctx?: Record<string, unknown> }[];
}

const LOCATION: Record<ArgumentMetadata['type'], string> = { body: 'body', query: 'query', param: 'path', custom: 'body' };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contextOf(error: ValidationError, constraint: string): IssueContext {
  const context: unknown = error.contexts?.[constraint];
  if (isPlainObject(context) && context.dynamic === 'int') return intTypeIssue(error.value);
  if (isPlainObject(context) && typeof context.type === 'string') return context as unknown as IssueContext;
  return { type: 'value_error', msg: `Value error, ${error.constraints?.[constraint] ?? 'invalid value'}`, rank: 9 };
}

/** The one most fundamental failure of a field: missing before wrong type before out of bounds. */
function issueOf(error: ValidationError, location: string, raw: Record<string, unknown>): ValidationIssue {
  const contexts = Object.keys(error.constraints ?? {}).map((name) => contextOf(error, name));
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

/** Turns body, query and path input into DTO instances, or fails with every violated field listed. */
@Injectable()
export class InputValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const metatype = metadata.metatype;
    if (!metatype || [String, Number, Boolean, Array, Object].includes(metatype as never) || metadata.type === 'custom') {
      return value;
    }
    const location = LOCATION[metadata.type];
    const raw = value === undefined || value === null || value === '' ? {} : value;
    if (!isPlainObject(raw)) {
      throw RequestValidationError.single({
        loc: [location],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        type: 'model_attributes_type',
        input: raw,
        ctx: {},
      });
    }
    const instance: object = plainToInstance(metatype as new () => object, raw);
    const errors = validateSync(instance, { forbidUnknownValues: false });
    const issues = errors.map((error) => issueOf(error, location, raw));
    const failed = new Set(errors.map((error) => error.property));
    const more = (metatype as Partial<MoreRules>).moreIssues?.(instance, failed) ?? [];
    issues.push(...more.map((issue) => ({ ...issue, loc: [location, ...issue.loc], ctx: issue.ctx ?? {} })));
    if (issues.length > 0) throw new RequestValidationError(issues);
    return instance;
  }
}
