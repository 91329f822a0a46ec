import { InboundEventsService } from '../../src/modules/webhooks/inbound-events.service';
import { startTestApp, type TestApp } from '../support/test-app';

describe('stored webhook events', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No workers: the test applies the events itself, to see the order they are handed over in.
    t = await startTestApp({ RUN_QUEUE_WORKERS: 'false' });
  });
  afterAll(async () => t.close());

  it('are handed to the applier in the order they were stored, even when stored by one insert', async () => {
    // Enough history that Postgres finds the events through the primary key (event id order), not by
    // reading the table in the order it was written.
    await t.db.query(
      `INSERT INTO inbound_events (provider, event_id, event_type, payload, processed_at)
       SELECT 'livekit', 'EV_old_' || g, 'test', '{}', now() FROM generate_series(1, 5000) g`,
    );
    await t.db.query(`ANALYZE inbound_events`);
    const inbound = t.app.get(InboundEventsService);
    const event = (id: string) => ({
      provider: 'livekit' as const,
      eventId: id,
      eventType: 'test',
      subject: 'room-x',
      payloadJson: JSON.stringify({ id }),
    });
    // The first two deliveries are stored alone; the next ones arrive while they are and share an
    // insert, in this order, stamped within a millisecond or two. Their ids sort the other way round,
    // as LiveKit's random ids can.
    const ids = ['EV_filler_1', 'EV_filler_2', 'EV_zz_first', 'EV_mm_second', 'EV_aa_third'];
    await Promise.all(ids.map((id) => inbound.store(event(id))));
    let handed: string[] = [];
    await inbound.applyEach('livekit', [...ids].reverse(), async (_tx, payloads) => {
      handed = payloads.map((payload) => (payload as { id: string }).id);
    });
    // The fillers' own inserts run concurrently with each other: only the shared insert's order is given.
    const shared = ids.slice(2);
    expect(handed.filter((id) => shared.includes(id))).toEqual(shared);
    expect([...handed].sort()).toEqual([...ids].sort());
  });
});
