/**
 * Statements whose parameter and row types are generated from the migrated schema (docs/decisions.md
 * "Types from the schema"). A repository writes its SQL with the `sql` tag and named parameters:
 *
 *   const USER_BY_SUBJECT = sql<IUserBySubjectQuery>`SELECT id, email FROM users WHERE auth_subject = $subject!`;
 *
 * `npm run db:types` (pgtyped) describes every tagged statement to a freshly migrated database and
 * writes `IUserBySubjectQuery` (its params and result) into `<repository>.types.ts` beside it; a test
 * fails when those files are stale. At run time the tag only rewrites `$name` into `$1…` once, when
 * the module loads: no parser on the request path.
 *
 * pgtyped's own conventions hold: `$name!` is a required parameter, `AS "column!"` a column known not
 * to be null (a function's or an expression's), `AS "column?"` one that may be (outer joins); the
 * mark is dropped from the row's key.
 */

/** What pgtyped generates for one statement. */
export interface QueryTypes {
  params: object | void;
  result: object | void;
}

export interface TypedStatement<Q extends QueryTypes> {
  /** The text with positional parameters, as Postgres receives it. */
  readonly text: string;
  /** The parameter names, in `$1…` order. */
  readonly parameters: readonly string[];
  /** Output columns whose name carries pgtyped's nullability mark: marked name → plain name (built once, at load). */
  readonly markedColumns: ReadonlyMap<string, string>;
  /** Set: a prepared statement, parsed and planned once per connection (the hot read paths). */
  readonly name?: string;
  /** Carries the types only. */
  readonly types?: Q;
}

// A parameter outside quotes and comments: `$name` or `$name!` (`$1` and `$$` are not names).
const TOKEN = /'(?:[^']|'')*'|"(?:[^"])*"|--[^\n]*|\/\*[\s\S]*?\*\/|::|\$([A-Za-z_][A-Za-z0-9_]*)!?/g;
const MARKED_COLUMN = /"([A-Za-z_][A-Za-z0-9_]*)[!?]"/g;

/** The parameters argument of a statement: none for a statement without parameters. */
export type ParamsOf<Q extends QueryTypes> = Q['params'] extends void ? [params?: undefined] : [params: Q['params']];

/** The tag: the statement with positional parameters, typed by the generated `Q`. */
export function sql<Q extends QueryTypes>(strings: TemplateStringsArray): TypedStatement<Q> {
  if (strings.length !== 1) throw new Error('A typed statement takes no interpolation: write it whole, so it can be described.');
  const source = strings[0];
  const parameters: string[] = [];
  const text = source.replace(TOKEN, (token: string, name: string | undefined) => {
    if (name === undefined) return token;
    let index = parameters.indexOf(name);
    if (index < 0) index = parameters.push(name) - 1;
    return `$${index + 1}`;
  });
  const markedColumns = new Map([...source.matchAll(MARKED_COLUMN)].map((match) => [match[0].slice(1, -1), match[1]] as const));
  return { text, parameters, markedColumns };
}

/** The same statement, prepared under `name` on each connection that runs it. */
export function prepared<Q extends QueryTypes>(name: string, statement: TypedStatement<Q>): TypedStatement<Q> {
  return { ...statement, name };
}

/** The values of `params`, in the statement's `$1…` order (a parameter left out is null). */
export function valuesOf<Q extends QueryTypes>(statement: TypedStatement<Q>, params: Q['params'] | void): unknown[] {
  const values = (params ?? {}) as Record<string, unknown>;
  return statement.parameters.map((name) => values[name] ?? null);
}

/**
 * Rows with pgtyped's nullability marks taken off their keys (only statements that use marks pay for
 * it). Each row is copied under its new keys rather than edited in place: deleting a property would
 * turn the row into a slow dictionary object for everything that reads or serialises it afterwards.
 */
export function unmarked<R>(statement: TypedStatement<QueryTypes>, rows: Record<string, unknown>[]): R[] {
  const plainName = statement.markedColumns;
  if (plainName.size === 0) return rows as R[];
  return rows.map((row) => {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(row)) copy[plainName.get(key) ?? key] = row[key];
    return copy as R;
  });
}

/**
 * A generated row with some columns narrowed to the domain's types (a text column its CHECK limits to
 * a union, say). Each narrowed column must exist in the row and fit the generated type.
 */
export type Narrowed<T, N extends { [K in keyof N]: K extends keyof T ? T[K] : never }> = Omit<T, keyof N> & N;

/**
 * An array parameter whose elements may be null (`unnest($lanes!::text[])` with rooms without a lane):
 * Postgres takes null elements, but pgtyped types an array parameter's elements as not null.
 */
export function withNulls<T>(values: (T | null)[]): T[] {
  return values as T[];
}
