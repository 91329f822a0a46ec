import { createOrganization, type TestOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * held_languages and language_reserved find a room's languages through indexes. Each must answer
 * exactly what reading every connection and reservation of the room answers, whatever mix of one-
 * and two-language tokens, fresh, lapsed and used reservations, and re-issued identities it holds.
 */
describe('held languages', () => {
  let t: TestApp;
  let org: TestOrganization;
  const LANGUAGES = ['de', 'en', 'es', 'fr'];

  beforeAll(async () => {
    t = await startTestApp({ RUN_QUEUE_WORKERS: 'false' });
    org = await createOrganization(t);
  });
  afterAll(async () => t.close());

  /** A small deterministic generator, so a failure can be replayed. */
  function random(seed: number) {
    let state = seed;
    return (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
  }

  async function roomWith(seed: number): Promise<{ roomId: string; identities: string[] }> {
    const next = random(seed);
    const [{ id: roomId }] = await t.db.query(
      `INSERT INTO rooms (organization_id, name, livekit_name, status, created_by_user_id) VALUES ($1, $2, $3, 'active', $4) RETURNING id`,
      [org.organizationId, `held-${seed}`, `${org.organizationId}.held-${seed}`, org.userId],
    );
    const identities: string[] = [];
    for (let i = 0; i < 1 + next(12); i++) {
      const identity = `p${next(6)}-${i % 3}`;
      if (identities.includes(identity)) continue;
      identities.push(identity);
      const first = LANGUAGES[next(LANGUAGES.length)];
      const languages = next(3) === 0 ? [first, LANGUAGES[(LANGUAGES.indexOf(first) + 1 + next(3)) % LANGUAGES.length]] : [first];
      // fresh, lapsed a moment ago, or used (its participant connected)
      const reserved = [`clock_timestamp() + interval '2 minutes'`, `clock_timestamp() - interval '1 second'`, 'NULL'][next(3)];
      await t.db.query(
        `INSERT INTO room_tokens (room_id, identity, kind, languages, reserved_until) VALUES ($1, $2, 'member', $3, ${reserved})`,
        [roomId, identity, languages],
      );
    }
    for (let i = 0; i < next(3); i++) {
      await t.db.query(
        `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, left_at, cents_per_minute)
         VALUES ($1, $2, $3, $4, 'member', $5, now() - interval '1 minute', ${next(2) === 0 ? 'NULL' : 'now()'}, 3)`,
        [roomId, org.organizationId, `PA_${seed}_${i}`, `c${i}`, [LANGUAGES[next(LANGUAGES.length)]]],
      );
    }
    return { roomId, identities };
  }

  /** Every row of the room read, as the languages were found before the indexes. */
  const byReadingEverything = `(SELECT coalesce(array_agg(DISTINCT held.l ORDER BY held.l), '{}') FROM (
      SELECT unnest(c.languages) AS l FROM connections c WHERE c.room_id = $1 AND c.left_at IS NULL AND c.languages IS NOT NULL
      UNION ALL
      SELECT unnest(t.languages) FROM room_tokens t
       WHERE t.room_id = $1 AND t.reserved_until > clock_timestamp() AND t.identity IS DISTINCT FROM $2::text) held)`;

  it('agree with reading every row of the room, in 60 generated rooms, for every identity and none', async () => {
    let compared = 0;
    let nonEmpty = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { roomId, identities } = await roomWith(seed);
      for (const except of [null, ...identities, 'nobody']) {
        const [row] = (await t.db.query(`SELECT held_languages($1, $2::text) AS indexed, ${byReadingEverything} AS everything`, [
          roomId,
          except,
        ])) as { indexed: string[]; everything: string[] }[];
        expect({ seed, except, held: row.indexed }).toEqual({ seed, except, held: row.everything });
        for (const language of LANGUAGES) {
          const [reserved] = (await t.db.query(
            `SELECT language_reserved($1, $3, $2::text, clock_timestamp()) AS indexed,
                    EXISTS (SELECT 1 FROM room_tokens t WHERE t.room_id = $1 AND t.reserved_until > clock_timestamp()
                              AND t.identity IS DISTINCT FROM $2::text AND $3 = ANY (t.languages)) AS everything`,
            [roomId, except, language],
          )) as { indexed: boolean; everything: boolean }[];
          expect({ seed, except, language, reserved: reserved.indexed }).toEqual({ seed, except, language, reserved: reserved.everything });
        }
        compared++;
        if (row.everything.length > 0) nonEmpty++;
      }
    }
    // The generated rooms exercise both answers, not only empty ones.
    expect(compared).toBeGreaterThan(200);
    expect(nonEmpty).toBeGreaterThan(compared / 4);
    expect(nonEmpty).toBeLessThan(compared);
  });

  it('finds a language held only by the second language of a two-language token, and not its holder', async () => {
    const { roomId } = await roomWith(1000);
    await t.db.query(`DELETE FROM room_tokens WHERE room_id = $1`, [roomId]);
    await t.db.query(`UPDATE connections SET left_at = now() WHERE room_id = $1`, [roomId]);
    await t.db.query(
      `INSERT INTO room_tokens (room_id, identity, kind, languages, reserved_until)
       VALUES ($1, 'mono', 'member', ARRAY['en', 'fr'], clock_timestamp() + interval '2 minutes')`,
      [roomId],
    );
    const held = async (except: string | null) =>
      ((await t.db.query(`SELECT held_languages($1, $2::text) AS held`, [roomId, except])) as { held: string[] }[])[0].held;
    expect(await held(null)).toEqual(['en', 'fr']);
    expect(await held('mono')).toEqual([]);
  });
});
