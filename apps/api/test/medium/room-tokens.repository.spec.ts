import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { RoomTokensRepository, type SharedAdmissionRequest, type TokenReservation } from '../../src/modules/rooms/room-tokens.repository';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';
import { MediumRows } from '../support/medium-rows';
import { rawRows } from '../support/raw-statements';
import { autocommit } from '../support/autocommit';

/**
 * Join tokens on the real database: their reservations, the languages a room holds and was issued,
 * shared admissions and released reservations, each only for a room of the caller's organization.
 */
describe('RoomTokensRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let rows: MediumRows;
  let tokens: RoomTokensRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    rows = new MediumRows(dataSource);
    tokens = new RoomTokensRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  const token = (identity: string, languages: string[], reserveSeconds = 120): TokenReservation => ({
    identity,
    kind: 'member',
    displayName: identity.toUpperCase(),
    languages,
    reserveSeconds,
  });

  /** A live room (mono, as MediumRows makes them) of a new organization, and another organization. */
  async function twoOrganizations(): Promise<{ a: string; b: string; room: string; roomName: string; otherRoom: string }> {
    const a = await rows.organization();
    const b = await rows.organization();
    const room = await rows.room(a, { startedAt: new Date() });
    const otherRoom = await rows.room(b, { startedAt: new Date() });
    const [{ name }] = await rawRows<{ name: string }>(database, `SELECT name FROM rooms WHERE id = $1`, [room]);
    return { a: a.organizationId, b: b.organizationId, room, roomName: name, otherRoom };
  }

  const storedTokens = (roomId: string) =>
    rawRows<{ identity: string; languages: string[]; display_name: string | null; fresh: boolean }>(
      database,
      `SELECT identity, languages, display_name, reserved_until > clock_timestamp() AS fresh FROM room_tokens WHERE room_id = $1 ORDER BY identity`,
      [roomId],
    );

  it("reserves a token's languages in its room, re-issues by identity, and holds or lists them only for the room's organization", async () => {
    const { a, b, room } = await twoOrganizations();
    await tokens.reserveToken(a, room, token('ann', ['es', 'en']), autocommit(database));
    await tokens.reserveToken(a, room, token('cy', ['fr'], 0), autocommit(database)); // its reservation lapses at once

    expect(await tokens.heldLanguages(a, room, null)).toEqual(['en', 'es']);
    expect(await tokens.heldLanguages(a, room, 'ann')).toEqual([]); // except ann's own reservation
    expect(await tokens.issuedLanguages(a, room)).toEqual(['en', 'es', 'fr']);

    // Re-issued for the same identity: one token, its new languages.
    await tokens.reserveToken(a, room, token('ann', ['de']), autocommit(database));
    expect(await storedTokens(room)).toEqual([
      { identity: 'ann', languages: ['de'], display_name: 'ANN', fresh: true },
      { identity: 'cy', languages: ['fr'], display_name: 'CY', fresh: false },
    ]);
    expect(await tokens.heldLanguages(a, room, null)).toEqual(['de']);

    // Another organization neither reads nor writes the room's tokens.
    await tokens.reserveToken(b, room, token('mallory', ['ja']), autocommit(database));
    await tokens.reserveToken(b, room, token('ann', ['ja']), autocommit(database));
    expect(await storedTokens(room)).toHaveLength(2);
    expect(await tokens.heldLanguages(b, room, null)).toEqual([]);
    expect(await tokens.issuedLanguages(b, room)).toEqual([]);
    expect(await tokens.heldLanguages(a, room, null)).toEqual(['de']);
  });

  it("admits together the tokens that change nothing, answers not admitted for the others, and nothing for another organization's room", async () => {
    const { a, b, room, roomName, otherRoom } = await twoOrganizations();
    await tokens.reserveToken(a, room, token('ann', ['en', 'es']), autocommit(database));
    const request = (organizationId: string, identity: string, languages: string[], name = roomName): SharedAdmissionRequest => ({
      organizationId,
      roomName: name,
      identity,
      kind: 'guest',
      displayName: null,
      languages,
    });

    const answers = await database.transaction((tx) =>
      tokens.admitShared(
        [request(a, 'bob', ['es', 'en']), request(b, 'eve', ['en', 'es']), request(a, 'cat', ['en', 'fr']), request(a, 'dan', ['en'])],
        120,
        tx,
      ),
    );
    const [{ livekit_name }] = await rawRows<{ livekit_name: string }>(database, `SELECT livekit_name FROM rooms WHERE id = $1`, [room]);
    const answer = { room_id: room, room_name: roomName, livekit_name, streaming_mode: 'mono' };
    expect([...answers.entries()].sort(([x], [y]) => x - y)).toEqual([
      [0, { ord: 0, ...answer, admitted: true }],
      [2, { ord: 2, ...answer, admitted: false }], // a new language: decided exclusively
      [3, { ord: 3, ...answer, admitted: false }], // one language in a mono room
    ]);
    expect((await storedTokens(room)).map((t) => t.identity)).toEqual(['ann', 'bob']);

    // One at a time through the batching path: the same answers; another organization's room is not found.
    const [bob, eve] = await Promise.all([
      tokens.admitTokenShared(request(a, 'bob', ['en', 'es']), 120),
      tokens.admitTokenShared(request(b, 'eve', ['en', 'es']), 120),
    ]);
    expect(bob).toMatchObject({ room_id: room, admitted: true });
    expect(eve).toBeNull();
    expect(await storedTokens(otherRoom)).toEqual([]);

    // An ended room admits nothing.
    await rawRows(database, `UPDATE rooms SET status = 'ended', ended_at = now() WHERE id = $1`, [room]);
    expect(await tokens.admitTokenShared(request(a, 'fay', ['en', 'es']), 120)).toBeNull();
  });

  it('releases the reservations of connected participants, returning their tokens, never those of a room of another organization', async () => {
    const { a, b, room } = await twoOrganizations();
    await tokens.reserveToken(a, room, token('ann', ['en', 'es']), autocommit(database));
    await tokens.reserveToken(a, room, token('bob', ['fr']), autocommit(database));
    expect(await tokens.releaseReservations([], autocommit(database))).toEqual([]);

    const released = await tokens.releaseReservations(
      [
        { organizationId: a, roomId: room, identity: 'ann' },
        { organizationId: b, roomId: room, identity: 'bob' }, // not b's room
        { organizationId: a, roomId: room, identity: 'nobody' },
      ],
      autocommit(database),
    );
    expect(released).toEqual([{ roomId: room, identity: 'ann', kind: 'member', languages: ['en', 'es'] }]);
    // ann's languages are no longer held by her token; bob's still are.
    expect(await tokens.heldLanguages(a, room, null)).toEqual(['fr']);
    expect(await storedTokens(room)).toEqual([
      expect.objectContaining({ identity: 'ann', fresh: null }),
      expect.objectContaining({ identity: 'bob', fresh: true }),
    ]);
  });
});
