import { autocommit } from '../support/autocommit';
import { rawRows } from '../support/raw-statements';
import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { InvitesRepository } from '../../src/modules/invites/invites.repository';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** Invite links on the real database: stored, previewed, spent and revoked, each within its organization. */
describe('InvitesRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let invites: InvitesRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    invites = new InvitesRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  async function organizationWithRoom(status = 'active', mode: string | null = null): Promise<{ organizationId: string; roomId: string }> {
    const [{ id: organizationId }] = await rawRows<{ id: string }>(
      database,
      `INSERT INTO organizations (name) VALUES ('invites') RETURNING id`,
    );
    const [{ id: userId }] = await rawRows<{ id: string }>(
      database,
      `INSERT INTO users (organization_id, email) VALUES ($1, 'host@example.com') RETURNING id`,
      [organizationId],
    );
    const roomId = randomUUID();
    await rawRows(
      database,
      `INSERT INTO rooms (id, organization_id, name, livekit_name, status, streaming_mode, created_by_user_id) VALUES ($1, $2, 'call', $3, $4, $5, $6)`,
      [roomId, organizationId, `${organizationId}.${roomId}`, status, mode, userId],
    );
    return { organizationId, roomId };
  }

  const inAnHour = () => new Date(Date.now() + 3600_000);
  const hash = () => randomBytes(32);

  it('stores a link only for a room of the organization, and tells its room status only to it', async () => {
    const a = await organizationWithRoom();
    const b = await organizationWithRoom('ended');
    const expiresAt = new Date('2030-01-01T00:00:00.123Z');
    expect(
      await invites.insert(
        { organizationId: b.organizationId, roomId: a.roomId, codeHash: hash(), expiresAt, maxUses: 3 },
        autocommit(database),
      ),
    ).toBeNull();
    expect(
      await invites.insert(
        { organizationId: a.organizationId, roomId: a.roomId, codeHash: hash(), expiresAt, maxUses: 3 },
        autocommit(database),
      ),
    ).toEqual(expiresAt);
    const [{ count }] = await rawRows<{ count: number }>(database, `SELECT count(*)::int AS count FROM invites WHERE room_id = $1`, [
      a.roomId,
    ]);
    expect(count).toBe(1);

    expect(await invites.roomStatus(a.organizationId, a.roomId)).toBe('active');
    expect(await invites.roomStatus(b.organizationId, b.roomId)).toBe('ended');
    expect(await invites.roomStatus(b.organizationId, a.roomId)).toBeNull();
  });

  it('previews links by their code hash with the languages their room holds, each its own, arriving together', async () => {
    const a = await organizationWithRoom('active', 'dual');
    const b = await organizationWithRoom('created');
    const [codeA, codeB] = [hash(), hash()];
    const expiresAt = inAnHour();
    await invites.insert(
      { organizationId: a.organizationId, roomId: a.roomId, codeHash: codeA, expiresAt, maxUses: 2 },
      autocommit(database),
    );
    await invites.insert(
      { organizationId: b.organizationId, roomId: b.roomId, codeHash: codeB, expiresAt, maxUses: 5 },
      autocommit(database),
    );
    await rawRows(
      database,
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
       VALUES ($1, $2, 'PA_1', 'ann', 'member', '{en}', now(), 3)`,
      [a.roomId, a.organizationId],
    );
    await rawRows(
      database,
      `INSERT INTO room_tokens (room_id, identity, kind, languages, reserved_until) VALUES ($1, 'bob', 'guest', '{de}', clock_timestamp() + interval '2 minutes')`,
      [a.roomId],
    );

    const [previewA, previewB, unknown, againA] = await Promise.all([
      invites.preview(codeA),
      invites.preview(codeB),
      invites.preview(hash()),
      invites.preview(codeA),
    ]);
    expect(previewA).toEqual({
      code_hash: codeA,
      expires_at: new Date(expiresAt.getTime()),
      max_uses: 2,
      uses: 0,
      room_status: 'active',
      streaming_mode: 'dual',
      held: ['de', 'en'],
    });
    expect(againA).toEqual(previewA);
    expect(previewB).toMatchObject({ code_hash: codeB, max_uses: 5, room_status: 'created', streaming_mode: null, held: [] });
    expect(unknown).toBeNull();
  });

  it('finds a link (locked when asked) and spends its uses within its organization', async () => {
    const a = await organizationWithRoom('active', 'mono');
    const b = await organizationWithRoom();
    const code = hash();
    await invites.insert(
      { organizationId: a.organizationId, roomId: a.roomId, codeHash: code, expiresAt: inAnHour(), maxUses: 2 },
      autocommit(database),
    );

    const found = await database.transaction(async (tx) => {
      const invite = await invites.find(code, true, tx);
      await invites.spendUse(invite!, tx);
      await invites.spendUse({ id: invite!.id, organization_id: b.organizationId }, tx);
      return invite;
    });
    expect(found).toEqual({
      id: expect.any(String),
      organization_id: a.organizationId,
      room_id: a.roomId,
      expires_at: expect.any(Date),
      max_uses: 2,
      uses: 0,
      room_status: 'active',
      streaming_mode: 'mono',
    });
    expect((await invites.find(code, false))?.uses).toBe(1);
    expect(await invites.find(hash(), false)).toBeNull();
  });

  it("revokes every link of the organization's room, never another organization's", async () => {
    const a = await organizationWithRoom();
    const b = await organizationWithRoom();
    const codes = [hash(), hash()];
    for (const codeHash of codes)
      await invites.insert(
        { organizationId: a.organizationId, roomId: a.roomId, codeHash, expiresAt: inAnHour(), maxUses: 1 },
        autocommit(database),
      );
    const other = hash();
    await invites.insert(
      { organizationId: b.organizationId, roomId: b.roomId, codeHash: other, expiresAt: inAnHour(), maxUses: 1 },
      autocommit(database),
    );

    expect(await invites.revokeAll(b.organizationId, a.roomId, autocommit(database))).toBe(0);
    expect(await invites.find(codes[0], false)).not.toBeNull();
    expect(await invites.revokeAll(a.organizationId, a.roomId, autocommit(database))).toBe(2);
    expect(await Promise.all(codes.map((code) => invites.preview(code)))).toEqual([null, null]);
    expect(await invites.preview(other)).not.toBeNull();
    expect(await invites.revokeAll(a.organizationId, a.roomId, autocommit(database))).toBe(0);
  });
});
