import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/** How long an ended room waits for late events here. */
const SETTLE_MS = 1500;

describe('room.ended, once the room has settled', () => {
  let h: RoomsHarness;
  let r: WebhookReceiver;
  beforeAll(async () => {
    h = await startRoomsHarness({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ROOM_SETTLE_MS: String(SETTLE_MS) });
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    await r.close();
    await h.close();
  });

  it("carries the totals after a leave LiveKit delivered after the room's end, and is sent once", async () => {
    const org = await createOrganization(h.t);
    const endpoint = await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: r.url, events: ['room.ended'] })
      .expect(201);
    expect(endpoint.body.id).toBeDefined();
    const room = await createRoom(h, org);
    for (const identity of ['alice', 'bruno'])
      await token(h, org, room.name, { identity, languages: [identity === 'alice' ? 'en' : 'de'] }).expect(201);
    // Ahead of now: every event follows the room's creation.
    const t0 = Math.floor(Date.now() / 1000) + 3600;
    const alice = { identity: 'alice', sid: 'PA_alice', joinedAt: String(t0) };
    const bruno = { identity: 'bruno', sid: 'PA_bruno', joinedAt: String(t0) };
    await webhook(h, events.participantJoined(room.livekitName, alice, { createdAt: t0 })).expect(200);
    await webhook(h, events.participantJoined(room.livekitName, bruno, { createdAt: t0 })).expect(200);
    await settled(h);
    // The room ends at T0+201 s; Alice's leave at T0+61 s reaches us only afterwards.
    await webhook(h, events.roomFinished(room.livekitName, { createdAt: t0 + 201 })).expect(200);
    await settled(h);
    const before = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200)).body as { total_connection_minutes: number };
    expect(before.total_connection_minutes).toBe(8);
    await webhook(h, events.participantLeft(room.livekitName, alice, { createdAt: t0 + 61 })).expect(200);

    const [ended] = await r.waitFor((all) => all.some((x) => x.event.type === 'room.ended'));
    const detail = (await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200)).body as {
      total_connection_minutes: number;
      total_charged_cents: number;
      participants: { participant_identity: string; connection_minutes: number }[];
    };
    // Alice is billed to her leave (2 minutes), Bruno to the room's end (4 minutes).
    expect(detail.participants.map((p) => [p.participant_identity, p.connection_minutes])).toEqual([
      ['alice', 2],
      ['bruno', 4],
    ]);
    expect(detail.total_connection_minutes).toBe(6);
    expect(ended.event.data).toEqual(detail);

    // Nothing more is sent for the room.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 1500));
    expect(r.received.filter((x) => x.event.type === 'room.ended')).toHaveLength(1);
  });
});
