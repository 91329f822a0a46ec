import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The SQL functions whose current definition is a source file beside this module
 * (`<name>.sql`, one `CREATE OR REPLACE FUNCTION` each), in the order they can be created: each
 * calls only those before it. The build copies the files next to the compiled module
 * (nest-cli.json, `assets`), so the same path works from the TypeScript source and from dist.
 *
 * Changing a function: edit its file, and add a migration that applies it (`sqlFunction(name)`),
 * as 1763941900000-SqlFunctionsFromSource does. Earlier migrations keep the text they ran (history).
 */
export const SQL_FUNCTIONS = [
  'language_reserved',
  'reserved_languages',
  'held_languages',
  'admit_token_shared',
  'admit_tokens_shared',
] as const;

export type SqlFunctionName = (typeof SQL_FUNCTIONS)[number];

/** The statement that (re)defines the function, read from its source file. */
export function sqlFunction(name: SqlFunctionName): string {
  const file = path.join(__dirname, `${name}.sql`);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`The definition of the SQL function ${name} is missing (${file}): ${(error as Error).message}`);
  }
}
