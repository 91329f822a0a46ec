import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A transcript segment says what the listener heard translated while the speaker went on (simultaneous
 * mode): the words sent to translation and those of them the final recognition revised. Both null for
 * a segment translated whole, and for every segment stored before.
 */
export class TranscriptCommittedWords1764900000000 implements MigrationInterface {
  name = 'TranscriptCommittedWords1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE transcript_segments
        ADD COLUMN committed_text text,
        ADD COLUMN revised_words text[],
        ADD CONSTRAINT transcript_segments_committed_whole CHECK ((committed_text IS NULL) = (revised_words IS NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE transcript_segments
        DROP CONSTRAINT transcript_segments_committed_whole,
        DROP COLUMN revised_words,
        DROP COLUMN committed_text`);
  }
}
