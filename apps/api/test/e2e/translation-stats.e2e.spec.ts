import { QUEUES, type TranslatorEventJob } from '@app/contracts';
import { TranslationStatsService } from '../../src/modules/translation-stats/translation-stats.service';
import { QueueRegistry } from '../../src/queue/queue.registry';
import { createOrganization } from '../support/factories';
import { createRoom, startRoomsHarness, type RoomsHarness } from '../support/rooms-harness';

describe('translation stats', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  /** Sends a report the way a translator agent does: onto translator-events, with a deterministic job id. */
  async function report(jobId: string, event: TranslatorEventJob) {
    await h.t.app.get(QueueRegistry).add(QUEUES.translatorEvents, event.type, event, { jobId });
  }

  async function storedEvents(roomId: string, n: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [{ count }] = (await h.t.db.query(`SELECT count(*)::int AS count FROM translation_events WHERE room_id = $1`, [roomId])) as {
        count: number;
      }[];
      if (count >= n) return count;
      if (Date.now() > deadline) throw new Error(`only ${count} of ${n} translator events stored`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  const latency = (
    room: { id: string; livekitName: string },
    at: string,
    direction: string,
    p50Ms: number,
    p95Ms: number,
    samples: number,
    audioSeconds: number,
  ): TranslatorEventJob => ({
    type: 'latency',
    roomId: room.id,
    livekitRoom: room.livekitName,
    at,
    direction,
    p50Ms,
    p95Ms,
    samples,
    audioSeconds,
  });

  it('a room without a translator yet has empty stats', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const res = await h.t.http().get(`/v1/rooms/${room.id}/translation-stats`).set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      room_id: room.id,
      translator_present: false,
      translator_sessions: 0,
      first_joined_at: null,
      last_left_at: null,
      audio_seconds: 0,
      directions: [],
    });
  });

  it('stores the agent reports from the queue and combines them per direction', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const base = { roomId: room.id, livekitRoom: room.livekitName };
    await report('AJ_1.joined', { type: 'joined', ...base, at: '2025-01-01T10:00:00.000Z' });
    await report('AJ_1.latency.1.en>de', latency(room, '2025-01-01T10:00:30.000Z', 'en>de', 400, 900, 30, 10));
    await report('AJ_1.latency.1.de>en', latency(room, '2025-01-01T10:00:30.000Z', 'de>en', 700, 800, 5, 4.5));
    await report('AJ_1.latency.2.en>de', latency(room, '2025-01-01T10:01:00.000Z', 'en>de', 800, 700, 10, 2.25));
    await storedEvents(room.id, 4);

    const res = await h.t.http().get(`/v1/rooms/${room.id.toUpperCase()}/translation-stats`).set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      room_id: room.id,
      translator_present: true,
      translator_sessions: 1,
      first_joined_at: '2025-01-01T10:00:00.000Z',
      last_left_at: null,
      audio_seconds: 16.75,
      directions: [
        {
          direction: 'de>en',
          source_language: 'de',
          target_language: 'en',
          samples: 5,
          p50_ms: 700,
          p95_ms: 800,
          audio_seconds: 4.5,
          last_reported_at: '2025-01-01T10:00:30.000Z',
        },
        {
          direction: 'en>de',
          source_language: 'en',
          target_language: 'de',
          samples: 40,
          p50_ms: 500,
          p95_ms: 900,
          audio_seconds: 12.25,
          last_reported_at: '2025-01-01T10:01:00.000Z',
        },
      ],
    });

    await report('AJ_1.left', { type: 'left', ...base, at: '2025-01-01T10:05:00.000Z' });
    await storedEvents(room.id, 5);
    const after = await h.t.http().get(`/v1/rooms/${room.id}/translation-stats`).set(org.auth);
    expect(after.body).toMatchObject({ translator_present: false, translator_sessions: 1, last_left_at: '2025-01-01T10:05:00.000Z' });
  });

  it('a redelivered report is stored once', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const stats = h.t.app.get(TranslationStatsService);
    const event = latency(room, '2025-01-01T10:00:30.000Z', 'en>de', 400, 900, 30, 10);
    expect(await stats.record('AJ_9.latency.1.en>de', event)).toBe(true);
    expect(await stats.record('AJ_9.latency.1.en>de', event)).toBe(false);
    const res = await h.t.http().get(`/v1/rooms/${room.id}/translation-stats`).set(org.auth);
    expect(res.body.directions).toEqual([expect.objectContaining({ direction: 'en>de', samples: 30, audio_seconds: 10 })]);
  });

  it('a report naming a room it does not belong to is dropped', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const stats = h.t.app.get(TranslationStatsService);
    expect(
      await stats.record('X.joined', { type: 'joined', roomId: room.id, livekitRoom: 'someone-else', at: new Date().toISOString() }),
    ).toBe(false);
    expect(
      await stats.record('Y.joined', { type: 'joined', roomId: 'not-a-uuid', livekitRoom: room.livekitName, at: new Date().toISOString() }),
    ).toBe(false);
  });

  it('another organization’s room is 404, a malformed id 422, no credentials 401', async () => {
    const owner = await createOrganization(h.t);
    const stranger = await createOrganization(h.t);
    const room = await createRoom(h, owner);

    const foreign = await h.t.http().get(`/v1/rooms/${room.id}/translation-stats`).set(stranger.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Room not found.' });

    const missing = await h.t.http().get(`/v1/rooms/00000000-0000-4000-8000-000000000000/translation-stats`).set(owner.auth);
    expect(missing.status).toBe(404);

    const malformed = await h.t.http().get(`/v1/rooms/not-a-uuid/translation-stats`).set(owner.auth);
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['path', 'room_id'], type: 'uuid_parsing' });

    const anonymous = await h.t.http().get(`/v1/rooms/${room.id}/translation-stats`);
    expect(anonymous.status).toBe(401);
  });

  it('is documented in the OpenAPI document', async () => {
    const res = await h.t.http().get('/openapi.json');
    const operation = res.body.paths['/v1/rooms/{room_id}/translation-stats']?.get;
    expect(operation).toBeDefined();
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '422']));
  });
});
