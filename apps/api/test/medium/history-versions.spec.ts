import type { EntityManager } from 'typeorm';
import { createOrganization, type TestOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The history cache is only as good as the version it is validated by: every write to a row a
 * history page shows must move the organization's version, in the writing transaction, whatever
 * code (or operator) writes it.
 */
describe('history versions', () => {
  let t: TestApp;
  let org: TestOrganization;
  let other: TestOrganization;
  let roomId: string;
  let connectionId: number;

  beforeAll(async () => {
    t = await startTestApp({ RUN_QUEUE_WORKERS: 'false' });
    org = await createOrganization(t, { creditCents: 0 });
    other = await createOrganization(t, { creditCents: 0 });
    [{ id: roomId }] = await t.db.query(
      `INSERT INTO rooms (organization_id, name, livekit_name, status, created_by_user_id)
       VALUES ($1, 'versioned', $2, 'active', $3) RETURNING id`,
      [org.organizationId, `${org.organizationId}.versioned`, org.userId],
    );
    [{ id: connectionId }] = await t.db.query(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
       VALUES ($1, $2, 'PA_v', 'ann', 'member', ARRAY['en'], now() - interval '5 minutes', 3) RETURNING id`,
      [roomId, org.organizationId],
    );
  });
  afterAll(async () => t.close());

  const versionOf = async (organizationId: string): Promise<number> => {
    const rows: { version: number }[] = await t.db.query(`SELECT version FROM history_versions WHERE organization_id = $1`, [
      organizationId,
    ]);
    return rows[0]?.version ?? 0;
  };
  /** How far one transaction moves each organization's version. */
  const moves = async (write: (tx: EntityManager) => Promise<unknown>) => {
    const before = [await versionOf(org.organizationId), await versionOf(other.organizationId)];
    await t.db.transaction(write);
    return { mine: (await versionOf(org.organizationId)) - before[0], theirs: (await versionOf(other.organizationId)) - before[1] };
  };

  it.each([
    ['a room starts', `UPDATE rooms SET started_at = now() - interval '5 minutes' WHERE id = $1`],
    ['a room gets its mode', `UPDATE rooms SET streaming_mode = 'dual' WHERE id = $1`],
    ['a room is charged', `UPDATE rooms SET total_connection_minutes = 5, total_charged_cents = 15 WHERE id = $1`],
    ['a room ends', `UPDATE rooms SET status = 'ended', ended_at = now() WHERE id = $1`],
  ])('moves once when %s', async (_what, sql) => {
    expect(await moves((tx) => tx.query(sql, [roomId]))).toEqual({ mine: 1, theirs: 0 });
  });

  it.each([
    ['a connection closes', `UPDATE connections SET left_at = now(), connection_minutes = 5, charged_cents = 15 WHERE id = $1`],
    ['a closed connection moves its start', `UPDATE connections SET joined_at = joined_at - interval '1 second' WHERE id = $1`],
    ['a connection is removed', `DELETE FROM connections WHERE id = $1`],
  ])('moves once when %s', async (_what, sql) => {
    expect(await moves((tx) => tx.query(sql, [connectionId]))).toEqual({ mine: 1, theirs: 0 });
  });

  it('moves when a credit line is written, not for a charge (its room totals move it)', async () => {
    const purchase = (tx: EntityManager) =>
      tx.query(
        `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at) VALUES ($1, 'purchase', 100, 'usd', now())`,
        [org.organizationId],
      );
    expect(await moves(purchase)).toEqual({ mine: 1, theirs: 0 });
    const [{ id: openId }] = await t.db.query(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
       VALUES ($1, $2, 'PA_c', 'cy', 'member', ARRAY['en'], now(), 3) RETURNING id`,
      [roomId, org.organizationId],
    );
    const charge = (tx: EntityManager) =>
      tx.query(
        `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, room_id, connection_id)
         VALUES ($1, 'charge', -3, 'usd', now(), $2, $3)`,
        [org.organizationId, roomId, openId],
      );
    expect(await moves(charge)).toEqual({ mine: 0, theirs: 0 });
  });

  it('stays for writes no page shows: a new uncharged room, its translator and LiveKit ids, an open connection', async () => {
    expect(
      await moves(async (tx) => {
        const [{ id }] = await tx.query(
          `INSERT INTO rooms (organization_id, name, livekit_name, status, created_by_user_id)
           VALUES ($1, 'quiet', $2, 'created', $3) RETURNING id`,
          [org.organizationId, `${org.organizationId}.quiet`, org.userId],
        );
        await tx.query(`UPDATE rooms SET sid = 'RM_quiet', translator_present = true, translator_generation = 1 WHERE id = $1`, [id]);
        await tx.query(
          `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
           VALUES ($1, $2, 'PA_q', 'quinn', 'member', ARRAY['de'], now(), 3)`,
          [id, org.organizationId],
        );
      }),
    ).toEqual({ mine: 0, theirs: 0 });
  });

  it('moves once per transaction and organization however many rows change, and each organization its own', async () => {
    const grant = (organizationId: string) => `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at)
      SELECT '${organizationId}', 'grant', 1, 'usd', now() FROM generate_series(1, 3)`;
    expect(
      await moves(async (tx) => {
        await tx.query(grant(org.organizationId));
        await tx.query(grant(other.organizationId));
        await tx.query(grant(org.organizationId));
      }),
    ).toEqual({ mine: 1, theirs: 1 });
  });

  it('does not move for a transaction that rolls back', async () => {
    const before = await versionOf(org.organizationId);
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query(`UPDATE rooms SET total_charged_cents = total_charged_cents + 1 WHERE id = $1`, [roomId]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await versionOf(org.organizationId)).toBe(before);
  });
});
