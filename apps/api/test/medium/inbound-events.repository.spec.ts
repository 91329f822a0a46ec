import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { InboundEventsRepository, type ReceivedEvent } from '../../src/modules/webhooks/inbound-events.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** `inbound_events` on the real database: stored once by id, applied once, found again when left unapplied. */
describe('InboundEventsRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let events: InboundEventsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    events = new InboundEventsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });
  beforeEach(async () => {
    await db.query(`DELETE FROM inbound_events`);
  });

  const livekit = (id: string, room = 'room-a'): ReceivedEvent => ({
    provider: 'livekit',
    eventId: id,
    eventType: 'participant_joined',
    subject: room,
    payloadJson: JSON.stringify({ id, event: 'participant_joined', room: { name: room } }),
  });
  const stripe = (id: string): ReceivedEvent => ({
    provider: 'stripe',
    eventId: id,
    eventType: 'checkout.session.completed',
    subject: null,
    payloadJson: JSON.stringify({ id, type: 'checkout.session.completed' }),
  });
  /** As if they had been stored that long ago. */
  const age = (ids: string[], seconds: number) =>
    db.query(`UPDATE inbound_events SET received_at = now() - make_interval(secs => $2) WHERE event_id = ANY($1)`, [ids, seconds]);

  it('stores an event once per provider and id, and says which were new', async () => {
    expect(await events.insert([livekit('EV_1'), stripe('evt_1'), livekit('EV_2')], autocommit(database))).toEqual([
      'livekit',
      'stripe',
      'livekit',
    ]);
    // A repeated delivery is not stored again; the same id from the other provider is another event.
    expect(await events.insert([livekit('EV_1'), stripe('EV_1'), livekit('EV_1')], autocommit(database))).toEqual(['stripe']);
    const [{ n }] = (await db.query(`SELECT count(*)::int AS n FROM inbound_events`)) as { n: number }[];
    expect(n).toBe(4);
  });

  it('hands over the payloads of unprocessed events once, in the order stored, whatever order they are asked in', async () => {
    await events.insert([livekit('EV_zz'), livekit('EV_mm'), livekit('EV_aa')], autocommit(database));
    const first = await database.transaction((tx) => events.markProcessed('livekit', ['EV_aa', 'EV_zz', 'EV_mm', 'EV_unknown'], tx));
    expect(first).toEqual([...['EV_zz', 'EV_mm', 'EV_aa'].map((id) => JSON.parse(livekit(id).payloadJson))]);
    expect(await database.transaction((tx) => events.markProcessed('livekit', ['EV_aa'], tx))).toEqual([]);
    // Only the provider asked for.
    await events.insert([stripe('EV_zz')], autocommit(database));
    expect(await database.transaction((tx) => events.markProcessed('stripe', ['EV_zz'], tx))).toEqual([
      JSON.parse(stripe('EV_zz').payloadJson),
    ]);
  });

  it('hands over with an event the unapplied events of its subject stored before it, and no other', async () => {
    await events.insert(
      [
        livekit('EV_a1', 'room-a'),
        livekit('EV_b1', 'room-b'),
        livekit('EV_a2', 'room-a'),
        livekit('EV_a3', 'room-a'),
        livekit('EV_b2', 'room-b'),
      ],
      autocommit(database),
    );
    const ids = (payloads: unknown[]) => payloads.map((payload) => (payload as { id: string }).id);
    expect(ids(await database.transaction((tx) => events.markProcessed('livekit', ['EV_a2'], tx)))).toEqual(['EV_a1', 'EV_a2']);
    expect(ids(await database.transaction((tx) => events.markProcessed('livekit', ['EV_b2', 'EV_a3'], tx)))).toEqual([
      'EV_b1',
      'EV_a3',
      'EV_b2',
    ]);
  });

  it('unmarks the events when applying them fails, and lets only one of two concurrent appliers have them', async () => {
    await events.insert([stripe('evt_a')], autocommit(database));
    await expect(
      database.transaction(async (tx) => {
        expect(await events.markProcessed('stripe', ['evt_a'], tx)).toHaveLength(1);
        throw new Error('applying failed');
      }),
    ).rejects.toThrow('applying failed');
    const both = await Promise.all(
      [1, 2].map(() =>
        database.transaction(async (tx) => {
          const payloads = await events.markProcessed('stripe', ['evt_a'], tx);
          await new Promise((resolve) => setTimeout(resolve, 50)); // holds the row while the other waits
          return payloads.length;
        }),
      ),
    );
    expect(both.sort()).toEqual([0, 1]);
  });

  it('finds the events left unapplied longer than asked, oldest first, with the room a LiveKit event is about', async () => {
    await events.insert([stripe('evt_old'), livekit('EV_old', 'room-x'), livekit('EV_fresh'), livekit('EV_done')], autocommit(database));
    await age(['evt_old', 'EV_old', 'EV_done'], 60);
    await database.transaction((tx) => events.markProcessed('livekit', ['EV_done'], tx));
    const stale = await events.unprocessed(15_000, 10);
    expect(stale).toEqual([
      { provider: 'stripe', eventId: 'evt_old', subject: null, seq: expect.any(Number) },
      { provider: 'livekit', eventId: 'EV_old', subject: 'room-x', seq: expect.any(Number) },
    ]);
    expect(stale[0].seq).toBeLessThan(stale[1].seq);
    expect(await events.unprocessed(15_000, 1)).toEqual([stale[0]]);
    expect(await events.unprocessed(120_000, 10)).toEqual([]);
  });
});
