import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { TranslationStatsRepository, type NewTranslationEvent } from '../../src/modules/translation-stats/translation-stats.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** The translator's reports on the real database, without the application: stored once, for the room they name, read per organization. */
describe('TranslationStatsRepository', () => {
  let database: DatabaseClient;
  let databaseUrl: string;
  let dataSource: DataSource;
  let stats: TranslationStatsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    stats = new TranslationStatsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  const newRoom = async () => {
    const [{ id: organizationId }] = (await dataSource.query(`INSERT INTO organizations (name) VALUES ('stats') RETURNING id`)) as {
      id: string;
    }[];
    const [{ id: userId }] = (await dataSource.query(
      `INSERT INTO users (organization_id, email) VALUES ($1, 'u@example.test') RETURNING id`,
      [organizationId],
    )) as { id: string }[];
    const livekitRoom = `lk-${randomUUID()}`;
    const [{ id: roomId }] = (await dataSource.query(
      `INSERT INTO rooms (organization_id, name, livekit_name, created_by_user_id) VALUES ($1, 'room', $2, $3) RETURNING id`,
      [organizationId, livekitRoom, userId],
    )) as { id: string }[];
    return { organizationId, roomId, livekitRoom };
  };
  const report = (
    room: { roomId: string; livekitRoom: string },
    at: string,
    fields: Partial<NewTranslationEvent> = {},
  ): NewTranslationEvent => ({
    eventKey: randomUUID(),
    roomId: room.roomId,
    livekitRoom: room.livekitRoom,
    type: 'joined',
    occurredAt: at,
    direction: null,
    p50Ms: null,
    p95Ms: null,
    samples: null,
    audioSeconds: null,
    ...fields,
  });

  it('stores a report once by its key, and only for a room with that id and LiveKit name', async () => {
    const room = await newRoom();
    const joined = report(room, '2030-01-01T10:00:00.000Z');
    expect(await stats.insert(joined, autocommit(database))).toBe(true);
    expect(await stats.insert(joined, autocommit(database))).toBe(false);
    expect(await stats.insert(report({ ...room, livekitRoom: 'lk-someone-else' }, '2030-01-01T10:00:01.000Z'), autocommit(database))).toBe(
      false,
    );
    expect(await stats.insert(report({ ...room, roomId: randomUUID() }, '2030-01-01T10:00:01.000Z'), autocommit(database))).toBe(false);
    expect(await stats.events(room.organizationId, room.roomId)).toHaveLength(1);
  });

  it("reads a room's reports in the order they happened, typed, and only for the room's organization", async () => {
    const room = await newRoom();
    const other = await newRoom();
    await stats.insert(report(room, '2030-01-01T10:05:00.000Z', { type: 'left' }), autocommit(database));
    await stats.insert(
      report(room, '2030-01-01T10:01:00.000Z', {
        type: 'latency',
        direction: 'en>fr',
        p50Ms: 420,
        p95Ms: 900,
        samples: 12,
        audioSeconds: 30.5,
      }),
      autocommit(database),
    );
    await stats.insert(report(room, '2030-01-01T10:00:00.000Z', { type: 'joined' }), autocommit(database));
    await stats.insert(report(other, '2030-01-01T09:00:00.000Z', { type: 'joined' }), autocommit(database));

    const events = await stats.events(room.organizationId, room.roomId);
    expect(events).toEqual([
      {
        type: 'joined',
        occurred_at: new Date('2030-01-01T10:00:00.000Z'),
        direction: null,
        p50_ms: null,
        p95_ms: null,
        samples: null,
        audio_seconds: null,
      },
      {
        type: 'latency',
        occurred_at: new Date('2030-01-01T10:01:00.000Z'),
        direction: 'en>fr',
        p50_ms: 420,
        p95_ms: 900,
        samples: 12,
        audio_seconds: 30.5,
      },
      {
        type: 'left',
        occurred_at: new Date('2030-01-01T10:05:00.000Z'),
        direction: null,
        p50_ms: null,
        p95_ms: null,
        samples: null,
        audio_seconds: null,
      },
    ]);
    expect(await stats.events(other.organizationId, room.roomId)).toEqual([]);
    expect(await stats.roomExists(room.organizationId, room.roomId)).toBe(true);
    expect(await stats.roomExists(other.organizationId, room.roomId)).toBe(false);
    expect(await stats.roomExists(room.organizationId, randomUUID())).toBe(false);
  });
});
