import { glossaryEntry } from '@app/domain';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { GlossariesRepository } from '../../src/modules/glossaries/glossaries.repository';
import { withTermKeys } from '../../src/modules/glossaries/glossary-entry-input';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';
import { MediumRows } from '../support/medium-rows';

const entry = glossaryEntry;

/** The glossary tables on the real database: order, tenancy, the duplicate lookup and what a room uses. */
describe('GlossariesRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let glossaries: GlossariesRepository;
  let rows: MediumRows;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    glossaries = new GlossariesRepository(database);
    rows = new MediumRows(db);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  it('stores a bulk of entries in the order sent and pages them oldest first', async () => {
    const { organizationId } = await rows.organization();
    const glossary = await glossaries.create(organizationId, 'bulk', false, autocommit(database));
    const sent = Array.from({ length: 300 }, (_, i) => entry({ en: `term ${i}` }, { soundsLike: { en: [`t ${i}`] } }));
    await glossaries.insertEntries(glossary.id, organizationId, sent.map(withTermKeys), autocommit(database));
    expect(await glossaries.entries(glossary.id, organizationId)).toEqual(sent);
    const page = await glossaries.entryPage(glossary.id, organizationId, 2, 299);
    expect(page.map((row) => row.terms)).toEqual([{ en: 'term 299' }]);
    await glossaries.recount(glossary.id, organizationId, autocommit(database));
    expect(await glossaries.get(glossary.id, organizationId)).toMatchObject({ entry_count: 300, languages: ['en'] });

    const stranger = await rows.organization();
    expect(await glossaries.entries(glossary.id, stranger.organizationId)).toEqual([]);
    expect(await glossaries.get(glossary.id, stranger.organizationId)).toBeUndefined();
  });

  it('finds the entries sharing a folded term key, in any of the new entry languages', async () => {
    const { organizationId } = await rows.organization();
    const glossary = await glossaries.create(organizationId, 'keys', false, autocommit(database));
    const stored = [entry({ en: 'Wi-Fi', es: 'wifi' }), entry({ en: 'Car' }, { caseSensitive: true }), entry({ de: 'Auto' })];
    await glossaries.insertEntries(glossary.id, organizationId, stored.map(withTermKeys), autocommit(database));
    const probe = (terms: Record<string, string>) =>
      glossaries.duplicateCandidates(glossary.id, organizationId, withTermKeys(entry(terms)).termKeys);
    expect(await probe({ en: 'WI-FI' })).toEqual([stored[0]]);
    expect(await probe({ en: 'car', de: 'auto' })).toEqual([stored[1], stored[2]]);
    expect(await probe({ fr: 'auto' })).toEqual([]);
  });

  it("reads a room's glossaries (own list, else the defaults newest first) with their entries and the revision, in one statement", async () => {
    const owner = await rows.organization();
    const { organizationId } = owner;
    const roomId = await rows.room(owner);
    expect(await glossaries.glossariesInUse(organizationId, roomId)).toEqual({ revision: 0, glossaries: [] });

    const a = await glossaries.create(organizationId, 'a', true, autocommit(database));
    const b = await glossaries.create(organizationId, 'b', false, autocommit(database));
    const c = await glossaries.create(organizationId, 'c', true, autocommit(database));
    await glossaries.insertEntries(
      a.id,
      organizationId,
      [entry({ en: 'one' }), entry({ en: 'two' }, { doNotTranslate: true })].map(withTermKeys),
      autocommit(database),
    );
    const revision = await database.transaction(async (tx) => {
      await glossaries.lockOrganization(organizationId, tx);
      return glossaries.bumpRevision(organizationId, tx);
    });
    expect(revision).toBe(1);

    const defaults = await glossaries.glossariesInUse(organizationId, roomId);
    expect(defaults).toEqual({
      revision: 1,
      glossaries: [
        { id: c.id, entries: [] },
        { id: a.id, entries: [entry({ en: 'one' }), entry({ en: 'two' }, { doNotTranslate: true })] },
      ],
    });
    expect(await glossaries.roomList(roomId, organizationId)).toEqual({ own: null, defaults: [c.id, a.id] });

    expect(await glossaries.setRoomList(roomId, organizationId, [b.id, a.id], autocommit(database))).toBe(true);
    expect((await glossaries.glossariesInUse(organizationId, roomId))?.glossaries.map((g) => g.id)).toEqual([b.id, a.id]);
    expect(await glossaries.leaveRooms(a.id, organizationId, autocommit(database))).toBe(1);
    expect(await glossaries.roomList(roomId, organizationId)).toEqual({ own: [b.id], defaults: [c.id, a.id] });
    await glossaries.setRoomList(roomId, organizationId, [], autocommit(database));
    expect(await glossaries.glossariesInUse(organizationId, roomId)).toEqual({ revision: 1, glossaries: [] });

    const stranger = await rows.organization();
    expect(await glossaries.glossariesInUse(stranger.organizationId, roomId)).toBeUndefined();
    expect(await glossaries.setRoomList(roomId, stranger.organizationId, [], autocommit(database))).toBe(false);
    expect(await glossaries.owned(stranger.organizationId, [a.id, b.id])).toEqual(new Set());
    expect(await glossaries.owned(organizationId, [a.id, b.id])).toEqual(new Set([a.id, b.id]));
  });

  it("reads several rooms' glossaries in one statement: each room its own list or the defaults, a glossary's entries once, another organization's room absent", async () => {
    const owner = await rows.organization();
    const { organizationId } = owner;
    const [own, byDefault, empty] = [await rows.room(owner), await rows.room(owner), await rows.room(owner)];
    const stranger = await rows.organization();
    const foreign = await rows.room(stranger);
    const shared = await glossaries.create(organizationId, 'shared', true, autocommit(database));
    const other = await glossaries.create(organizationId, 'other', false, autocommit(database));
    await glossaries.insertEntries(shared.id, organizationId, [entry({ en: 'one' })].map(withTermKeys), autocommit(database));
    await glossaries.insertEntries(other.id, organizationId, [entry({ en: 'two' })].map(withTermKeys), autocommit(database));
    await glossaries.setRoomList(own, organizationId, [other.id, shared.id], autocommit(database));
    await glossaries.setRoomList(empty, organizationId, [], autocommit(database));

    const byRoom = await glossaries.glossariesInUseByRoom(organizationId, [own, byDefault, empty, foreign]);
    expect([...byRoom.keys()].sort()).toEqual([own, byDefault, empty].sort());
    expect(byRoom.get(own)).toEqual({
      revision: 0,
      glossaries: [
        { id: other.id, entries: [entry({ en: 'two' })] },
        { id: shared.id, entries: [entry({ en: 'one' })] },
      ],
    });
    expect(byRoom.get(byDefault)).toEqual({ revision: 0, glossaries: [{ id: shared.id, entries: [entry({ en: 'one' })] }] });
    expect(byRoom.get(empty)).toEqual({ revision: 0, glossaries: [] });
    // Each room equals what the single-room read gives.
    for (const roomId of [own, byDefault, empty])
      expect(byRoom.get(roomId)).toEqual(await glossaries.glossariesInUse(organizationId, roomId));
    expect(await glossaries.glossariesInUseByRoom(organizationId, [])).toEqual(new Map());
  });
});
