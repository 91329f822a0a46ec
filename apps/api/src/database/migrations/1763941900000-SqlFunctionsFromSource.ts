import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SQL_FUNCTIONS, sqlFunction } from '../functions/sql-functions';

/**
 * The token admission functions (admit_tokens_shared, admit_token_shared) and the held-language
 * functions they use, defined from their source files in `database/functions/*.sql`: the current
 * definition of each is that one file, no longer the last CREATE OR REPLACE among the migrations.
 *
 * The definitions are those HeldLanguagesByIndex and BatchedTokenAdmission left, with one change to
 * admit_token_shared found by comparing it with the rule of libs/domain: a token whose number of
 * languages is neither 1 nor 2 is never admitted (it was, into a dual room, with 0 or 3 languages
 * all held). Requests never send such a token (422 first), so nothing the API answers changes.
 */
export class SqlFunctionsFromSource1763941900000 implements MigrationInterface {
  name = 'SqlFunctionsFromSource1763941900000';

  async up(q: QueryRunner): Promise<void> {
    for (const name of SQL_FUNCTIONS) await q.query(sqlFunction(name));
  }

  async down(): Promise<void> {
    // Nothing to undo that a request could notice: the functions keep their signatures, and the
    // only change admits no token the API sends.
  }
}
