import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import type { Tx } from '../../src/database/sql';
import { GlossaryDeliveryRepository } from '../../src/modules/glossaries/glossary-delivery.repository';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';
import { MediumRows } from '../support/medium-rows';
import { rawRows } from '../support/raw-statements';

/**
 * What delivering glossaries reads, on the real database: an organization's rooms with a translator, and
 * its lock between dispatches (shared) and changes (exclusive), which never holds another organization back.
 */
describe('GlossaryDeliveryRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let rows: MediumRows;
  const delivery = new GlossaryDeliveryRepository();

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    rows = new MediumRows(dataSource);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  async function withTranslator(roomId: string, generation: number): Promise<void> {
    await rawRows(database, `UPDATE rooms SET translator_present = true, translator_generation = $2 WHERE id = $1`, [roomId, generation]);
  }

  it("lists the organization's live rooms with a translator, with their LiveKit name and generation, and no other organization's", async () => {
    const a = await rows.organization();
    const b = await rows.organization();
    const live = await rows.room(a, { startedAt: new Date() });
    const created = await rows.room(a);
    await rows.room(a, { startedAt: new Date() }); // no translator
    const ended = await rows.room(a, { startedAt: new Date(Date.now() - 60_000), endedAt: new Date() });
    const foreign = await rows.room(b, { startedAt: new Date() });
    for (const [room, generation] of [
      [live, 2],
      [created, 1],
      [ended, 5],
      [foreign, 7],
    ] as const)
      await withTranslator(room, generation);
    const [{ livekit_name: liveName }] = await rawRows<{ livekit_name: string }>(database, `SELECT livekit_name FROM rooms WHERE id = $1`, [
      live,
    ]);

    const found = await database.transaction((tx) => delivery.translatorRooms(a.organizationId, tx));
    expect(found.sort((x, y) => x.translator_generation - y.translator_generation)).toEqual([
      expect.objectContaining({ id: created, translator_generation: 1 }),
      { id: live, livekit_name: liveName, translator_generation: 2 },
    ]);
    expect(await database.transaction((tx) => delivery.translatorRooms(b.organizationId, tx))).toEqual([
      expect.objectContaining({ id: foreign, translator_generation: 7 }),
    ]);
    const none = (await rows.organization()).organizationId;
    expect(await database.transaction((tx) => delivery.translatorRooms(none, tx))).toEqual([]);
  });

  /** Whether `hold` is granted at once in a transaction of its own ('taken') or would wait ('waits'). */
  function attempt(hold: (tx: Tx) => Promise<void>): Promise<'taken' | 'waits'> {
    return database
      .transaction(async (tx) => {
        await rawRows(tx, `SET LOCAL lock_timeout = '200ms'`);
        await hold(tx);
        return 'taken' as const;
      })
      .catch((error: { code?: string }) => {
        if (error.code === '55P03') return 'waits' as const;
        throw error;
      });
  }

  /** Runs `check` while `hold` is held by another transaction, then commits that transaction. */
  function whileHeld<T>(hold: (tx: Tx) => Promise<void>, check: () => Promise<T>): Promise<T> {
    return database.transaction(async (tx) => {
      await hold(tx);
      return check();
    });
  }

  it('dispatches (shared) never wait for each other; a change (exclusive) waits for them, and they for it, within one organization only', async () => {
    const a = (await rows.organization()).organizationId;
    const b = (await rows.organization()).organizationId;
    const dispatch = (org: string) => (tx: Tx) => delivery.holdChangesBack(org, tx);
    const change = (org: string) => (tx: Tx) => delivery.holdDeliveriesBack(org, tx);

    expect(
      await whileHeld(dispatch(a), async () => ({
        anotherDispatch: await attempt(dispatch(a)),
        change: await attempt(change(a)),
        changeElsewhere: await attempt(change(b)),
      })),
    ).toEqual({ anotherDispatch: 'taken', change: 'waits', changeElsewhere: 'taken' });

    expect(
      await whileHeld(change(a), async () => ({
        dispatch: await attempt(dispatch(a)),
        anotherChange: await attempt(change(a)),
        dispatchElsewhere: await attempt(dispatch(b)),
      })),
    ).toEqual({ dispatch: 'waits', anotherChange: 'waits', dispatchElsewhere: 'taken' });

    // Both are transaction locks: once the holder committed, a change goes ahead.
    expect(await attempt(change(a))).toBe('taken');
  });
});
