import type { DataSource } from 'typeorm';
import type { Tx } from '../../src/database/sql';
import { DatabaseClient } from '../../src/database/database.client';
import { RoomTokensRepository } from '../../src/modules/rooms/room-tokens.repository';
import { RoomsRepository } from '../../src/modules/rooms/rooms.repository';
import { TranscriptsRepository, type SegmentRecord } from '../../src/modules/transcripts/transcripts.repository';
import { autocommit } from '../support/autocommit';
import { MediumRows } from '../support/medium-rows';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * TranscriptsRepository on the real database, without the application: a segment is stored once
 * per room and id, never into a closed transcript nor with storing off, reads are in spoken order
 * and scoped to the organization, the close is decided once, and retention follows each
 * organization's setting.
 */
describe('TranscriptsRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let transcripts: TranscriptsRepository;
  let rows: MediumRows;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    transcripts = new TranscriptsRepository(database);
    rows = new MediumRows(db);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  /** What closing a room's transcript decides (as TranscriptReadinessService does): the rooms aggregate closes it, then its summary is read. */
  const closeTranscript = async (roomId: string, tx: Tx) => {
    const room = await new RoomsRepository(database).closeTranscript(roomId, tx);
    return room && { ...room, ...(await transcripts.summary(roomId, tx)) };
  };

  const t0 = Date.parse('2026-11-25T10:00:00.000Z');
  const record = (roomId: string, segmentId: string, startMs: number, over: Partial<SegmentRecord> = {}): SegmentRecord => ({
    roomId,
    livekitRoom: '',
    segmentId,
    participantIdentity: 'alice',
    language: 'en',
    text: `said ${segmentId}`,
    translation: { language: 'es', text: `dicho ${segmentId}` },
    startedAt: new Date(t0 + startMs),
    endedAt: new Date(t0 + startMs + 500),
    ...over,
  });

  it('stores each (room, segment id) once, even within one batch, and returns what it wrote', async () => {
    const owner = await rows.organization();
    const room = await rows.room(owner);
    const first = await transcripts.store([record(room, 'a', 0), record(room, 'a', 0), record(room, 'b', 10)], autocommit(database));
    expect(first).toEqual(new Set([`${room} a`, `${room} b`]));
    expect(await transcripts.store([record(room, 'a', 0, { text: 'changed' }), record(room, 'c', 20)], autocommit(database))).toEqual(
      new Set([`${room} c`]),
    );
    const page = await transcripts.page(owner.organizationId, room, { limit: 10, offset: 0 });
    expect(page.map((s) => [s.id, s.text])).toEqual([
      ['a', 'said a'],
      ['b', 'said b'],
      ['c', 'said c'],
    ]);
  });

  it('checks the LiveKit name when the reporter gives one, and stores nothing for an unknown room', async () => {
    const owner = await rows.organization();
    const room = await rows.room(owner);
    const [{ livekit_name }] = (await db.query(`SELECT livekit_name FROM rooms WHERE id = $1`, [room])) as { livekit_name: string }[];
    const stored = await transcripts.store(
      [
        record(room, 'right', 0, { livekitRoom: livekit_name }),
        record(room, 'wrong', 0, { livekitRoom: 'lk-someone-else' }),
        record('00000000-0000-4000-8000-000000000000', 'nowhere', 0),
      ],
      autocommit(database),
    );
    expect(stored).toEqual(new Set([`${room} right`]));
  });

  it('writes nothing for an organization with storing off, and again once it is on', async () => {
    const owner = await rows.organization();
    const room = await rows.room(owner);
    await transcripts.saveSettings(owner.organizationId, { store: false, retentionDays: 30 }, autocommit(database));
    expect(await transcripts.store([record(room, 'off', 0)], autocommit(database))).toEqual(new Set());
    const [{ n }] = (await db.query(`SELECT count(*)::int AS n FROM transcript_segments WHERE room_id = $1`, [room])) as { n: number }[];
    expect(n).toBe(0);
    await transcripts.saveSettings(owner.organizationId, { store: true, retentionDays: 30 }, autocommit(database));
    expect(await transcripts.store([record(room, 'on', 0)], autocommit(database))).toEqual(new Set([`${room} on`]));
  });

  it('keeps the words committed to translation and those revised, within one batch beside segments without them', async () => {
    const owner = await rows.organization();
    const room = await rows.room(owner);
    await transcripts.store(
      [
        record(room, 'revised', 0, { text: 'had he married', committed: { text: 'addie married', revisedWords: ['addie'] } }),
        record(room, 'whole', 10),
        record(room, 'kept', 20, { text: 'he said so', committed: { text: 'he said so', revisedWords: [] } }),
      ],
      autocommit(database),
    );
    const page = await transcripts.page(owner.organizationId, room, { limit: 10, offset: 0 });
    expect(page.map((s) => [s.id, s.committed])).toEqual([
      ['revised', { text: 'addie married', revised_words: ['addie'], revised: true }],
      ['whole', null],
      ['kept', { text: 'he said so', revised_words: [], revised: false }],
    ]);
  });

  it('settings: the defaults until saved, then what was saved, per organization', async () => {
    const [a, b] = [await rows.organization(), await rows.organization()];
    expect(await transcripts.settings(a.organizationId)).toEqual({ store: true, retentionDays: 30 });
    await transcripts.saveSettings(a.organizationId, { store: false, retentionDays: 3650 }, autocommit(database));
    await transcripts.saveSettings(a.organizationId, { store: true, retentionDays: 7 }, autocommit(database));
    expect(await transcripts.settings(a.organizationId)).toEqual({ store: true, retentionDays: 7 });
    expect(await transcripts.settings(b.organizationId)).toEqual({ store: true, retentionDays: 30 });
  });

  it("reads in spoken order (start, then id) with millisecond times, only for the room's organization", async () => {
    const [owner, other] = [await rows.organization(), await rows.organization()];
    const room = await rows.room(owner);
    await transcripts.store(
      [
        record(room, 'z', 0.4),
        record(room, 'b', 1_000, { participantIdentity: 'bob', language: 'es', translation: null }),
        record(room, 'y', 0),
      ],
      autocommit(database),
    );
    const all = await transcripts.page(owner.organizationId, room, { limit: 10, offset: 0 });
    // 0.4 ms is stored at millisecond precision: the same instant as 0, so the id decides.
    expect(all.map((s) => s.id)).toEqual(['y', 'z', 'b']);
    expect(all[0].started_at).toEqual(new Date(t0));
    expect((await transcripts.all(owner.organizationId, room)).map((s) => [s.text, s.startedAt])).toEqual([
      ['said y', new Date(t0)],
      ['said z', new Date(t0)],
      ['said b', new Date(t0 + 1_000)],
    ]);
    expect(all[2]).toEqual({
      id: 'b',
      participant_identity: 'bob',
      language: 'es',
      text: 'said b',
      translation: null,
      started_at: new Date(t0 + 1_000),
      ended_at: new Date(t0 + 1_500),
      committed: null,
    });
    expect(await transcripts.all(other.organizationId, room)).toEqual([]);
    expect(await transcripts.page(other.organizationId, room, { limit: 10, offset: 0 })).toEqual([]);
    expect(await transcripts.room(other.organizationId, room)).toBeNull();
    expect(await transcripts.erase(other.organizationId, room, autocommit(database))).toBe(0);
    expect((await transcripts.page(owner.organizationId, room, { limit: 1, offset: 1 })).map((s) => s.id)).toEqual(['z']);
  });

  it("the languages a room has held for its exports: its join tokens', for its organization only", async () => {
    const [owner, other] = [await rows.organization(), await rows.organization()];
    const room = await rows.room(owner);
    await db.query(
      `INSERT INTO room_tokens (room_id, identity, kind, languages) VALUES ($1, 'a', 'member', ARRAY['es']), ($1, 'b', 'guest', ARRAY['en', 'es'])`,
      [room],
    );
    const tokens = new RoomTokensRepository(database);
    expect(await tokens.issuedLanguages(owner.organizationId, room)).toEqual(['en', 'es']);
    expect(await tokens.issuedLanguages(other.organizationId, room)).toEqual([]);
  });

  it('closes an ended room once, counting what it holds; later segments are not stored', async () => {
    const owner = await rows.organization();
    const live = await rows.room(owner, { startedAt: new Date(t0) });
    const ended = await rows.room(owner, { startedAt: new Date(t0), endedAt: new Date(t0 + 60_000) });
    await transcripts.store(
      [record(ended, 'one', 0), record(ended, 'two', 5, { translation: { language: 'de', text: 'zwei' } })],
      autocommit(database),
    );
    expect(await database.transaction((tx) => closeTranscript(live, tx))).toBeNull();
    const closed = await database.transaction((tx) => closeTranscript(ended, tx));
    expect(closed).toEqual({
      organizationId: owner.organizationId,
      name: expect.any(String),
      startedAt: new Date(t0),
      endedAt: new Date(t0 + 60_000),
      segments: 2,
      languages: ['de', 'en', 'es'],
    });
    expect(await database.transaction((tx) => closeTranscript(ended, tx))).toBeNull();
    expect(await transcripts.store([record(ended, 'late', 10)], autocommit(database))).toEqual(new Set());
  });

  it('a close waits for an insert under way, and counts it', async () => {
    const owner = await rows.organization();
    const room = await rows.room(owner, { startedAt: new Date(t0), endedAt: new Date(t0 + 1_000) });
    let closing: Promise<unknown> | null = null;
    const result = await database.transaction(async (tx) => {
      await transcripts.store([record(room, 'in-flight', 0)], tx);
      // The close starts while the insert's transaction holds the room FOR SHARE, and must wait for it.
      closing = database.transaction((other) => closeTranscript(room, other));
      await new Promise((resolve) => setTimeout(resolve, 200));
      return 'inserted';
    });
    expect(result).toBe('inserted');
    expect(await closing).toEqual(expect.objectContaining({ segments: 1 }));
  });

  it('due to close: ended rooms whose translator left, or that ended long enough ago', async () => {
    const owner = await rows.organization();
    const recent = new Date(Date.now() - 5_000);
    const [noTranslator, stillThere, left, longAgo] = [
      await rows.room(owner, { startedAt: new Date(t0), endedAt: recent }),
      await rows.room(owner, { startedAt: new Date(t0), endedAt: recent }),
      await rows.room(owner, { startedAt: new Date(t0), endedAt: recent }),
      await rows.room(owner, { startedAt: new Date(t0), endedAt: new Date(Date.now() - 61_000) }),
    ];
    const event = (room: string, type: string, key: string) =>
      db.query(`INSERT INTO translation_events (event_key, organization_id, room_id, type, occurred_at) VALUES ($1, $2, $3, $4, now())`, [
        key,
        owner.organizationId,
        room,
        type,
      ]);
    await event(stillThere, 'joined', `${stillThere}.j`);
    await event(left, 'joined', `${left}.j`);
    await event(left, 'left', `${left}.l`);
    await event(longAgo, 'joined', `${longAgo}.j`);
    const due = await transcripts.dueToClose(60, 1_000);
    expect(due).toEqual(expect.arrayContaining([noTranslator, left, longAgo]));
    expect(due).not.toContain(stillThere);
  });

  it("retention: deletes what is older than each organization's retention, in bounded batches", async () => {
    const [short, standard] = [await rows.organization(), await rows.organization()];
    await transcripts.saveSettings(short.organizationId, { store: true, retentionDays: 2 }, autocommit(database));
    const [a, b] = [await rows.room(short), await rows.room(standard)];
    const daysAgo = (d: number) => Date.now() - t0 - d * 86_400_000;
    await transcripts.store([record(a, 'a3', daysAgo(3)), record(a, 'a3b', daysAgo(3)), record(a, 'a1', daysAgo(1))], autocommit(database));
    await transcripts.store([record(b, 'b3', daysAgo(3)), record(b, 'b31', daysAgo(31))], autocommit(database));
    expect(await transcripts.deleteExpired(1, autocommit(database))).toBe(1);
    expect(await transcripts.deleteExpired(100, autocommit(database))).toBe(2);
    expect(await transcripts.deleteExpired(100, autocommit(database))).toBe(0);
    expect((await transcripts.all(short.organizationId, a)).map((s) => s.text)).toEqual(['said a1']);
    expect((await transcripts.all(standard.organizationId, b)).map((s) => s.text)).toEqual(['said b3']);
  });
});
