import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startTestAppOn } from '../support/test-app';

const MINUTE = 60;

describe('per-minute rates', () => {
  let before: RoomsHarness;
  let after: RoomsHarness;
  beforeAll(async () => {
    before = await startRoomsHarness({ RATE_PARTICIPANT_CENTS_PER_MINUTE: '3', RATE_TRANSLATOR_CENTS_PER_MINUTE: '6' });
  });
  afterAll(async () => {
    await after?.t.close();
    await before.close();
  });

  it('bills each connection at the rate of its class when it joined, even when the rates change before it leaves', async () => {
    const org = await createOrganization(before.t);
    const room = await createRoom(before, org);
    await token(before, org, room.name, { languages: ['en'], identity: 'ann' }).expect(201);
    await token(before, org, room.name, { languages: ['de'], identity: 'bob' }).expect(201);
    const t0 = Math.floor(Date.now() / 1000) - 10 * MINUTE;
    const ann = { identity: 'ann', sid: 'PA_ann', joinedAt: String(t0) };
    const agent = { identity: 'agent-1', sid: 'PA_agent', joinedAt: String(t0), kind: 'AGENT' as const };
    await webhook(before, events.participantJoined(room.livekitName, ann, { createdAt: t0 })).expect(200);
    await webhook(before, events.participantJoined(room.livekitName, agent, { createdAt: t0 })).expect(200);
    await settled(before);

    // The deployment restarts with new rates (same database, same LiveKit); the call goes on.
    await before.t.app.close();
    const raised = { RATE_PARTICIPANT_CENTS_PER_MINUTE: '5', RATE_TRANSLATOR_CENTS_PER_MINUTE: '11' };
    after = {
      t: await startTestAppOn(before.t.config.databaseUrl, {
        LIVEKIT_API_URL: before.livekit.url,
        LIVEKIT_API_KEY: before.livekit.apiKey,
        LIVEKIT_API_SECRET: before.livekit.apiSecret,
        ...raised,
      }),
      livekit: before.livekit,
      close: async () => undefined,
    };
    const credit = await after.t.http().get('/v1/billing/credit').set(org.auth).expect(200);
    expect(credit.body.rates).toEqual(
      expect.arrayContaining([
        { participant_class: 'participant', cents_per_minute: 5 },
        { participant_class: 'translator', cents_per_minute: 11 },
      ]),
    );
    const bob = { identity: 'bob', sid: 'PA_bob', joinedAt: String(t0 + 2 * MINUTE) };
    await webhook(after, events.participantJoined(room.livekitName, bob, { createdAt: t0 + 2 * MINUTE })).expect(200);
    await webhook(after, events.participantLeft(room.livekitName, ann, { createdAt: t0 + 4 * MINUTE })).expect(200);
    await webhook(after, events.participantLeft(room.livekitName, agent, { createdAt: t0 + 4 * MINUTE })).expect(200);
    await webhook(after, events.participantLeft(room.livekitName, bob, { createdAt: t0 + 4 * MINUTE + 1 })).expect(200);
    await settled(after);

    const detail = await after.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200);
    const charged = Object.fromEntries(
      detail.body.participants.map((p: { participant_identity: string; connection_minutes: number; charged_cents: number }) => [
        p.participant_identity,
        [p.connection_minutes, p.charged_cents],
      ]),
    );
    expect(charged).toEqual({
      ann: [4, 4 * 3], // joined at 3 ¢/min
      'agent-1': [4, 4 * 6], // the translator joined at 6 ¢/min
      bob: [3, 3 * 5], // joined after the change: 2 min 1 s started 3 minutes at 5 ¢/min
    });
    expect(detail.body.total_charged_cents).toBe(12 + 24 + 15);
  });
});
