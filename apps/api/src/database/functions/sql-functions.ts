/**
 * The SQL functions whose current definition is a source file beside this module (`<name>.sql`, one
 * `CREATE OR REPLACE FUNCTION` each), in the order they can be created: each calls only those before
 * it. The files are the readable source; migrations never read them, they hold their SQL inline.
 *
 * Changing a function: edit its file, and add a migration whose up() runs the file's new text
 * verbatim and whose down() runs the old one (migrations.spec.ts fails until the latest migration
 * defining each function ran exactly its file).
 */
export const SQL_FUNCTIONS = [
  'language_reserved',
  'reserved_languages',
  'held_languages',
  'admit_token_shared',
  'admit_tokens_shared',
] as const;

export type SqlFunctionName = (typeof SQL_FUNCTIONS)[number];
