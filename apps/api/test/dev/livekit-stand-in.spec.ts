import { RoomServiceClient, WebhookReceiver } from 'livekit-server-sdk';
import { freePort } from '../support/dev-run';
import type { LiveKitDouble } from '../support/livekit-double';
import { standInOptionsFromConfig, startLiveKitStandIn } from '../support/livekit-stand-in';
import { startWebhookReceiver, type WebhookReceiver as Receiver } from '../support/webhook-receiver';

/** The LiveKit stand-in `npm run dev` starts when no LiveKit exists: the server API, and LiveKit's signed room webhooks. */
describe('LiveKit stand-in', () => {
  let receiver: Receiver;
  let standIn: LiveKitDouble;

  beforeAll(async () => {
    receiver = await startWebhookReceiver('/v1/webhooks/livekit');
    // the config npm run dev writes for livekit-server (scripts/dev/livekit.mjs), read the same way
    const options = standInOptionsFromConfig(
      [
        `port: ${await freePort()}`,
        'keys:',
        '  "devkey": "secret"',
        'webhook:',
        '  api_key: "devkey"',
        '  urls:',
        `    - "${receiver.url}"`,
      ].join('\n'),
    );
    expect(options).toMatchObject({ apiKey: 'devkey', apiSecret: 'secret', webhookUrls: [receiver.url] });
    standIn = await startLiveKitStandIn(options);
  });
  afterAll(async () => {
    await standIn.close();
    await receiver.close();
  });

  it('sends room_started and room_finished, signed as LiveKit signs them, for rooms created and deleted through its API; retries a refused one', async () => {
    receiver.reply = (_request, index) => ({ status: index === 0 ? 503 : 200 });
    const rooms = new RoomServiceClient(standIn.url, 'devkey', 'secret');
    const room = await rooms.createRoom({ name: 'stand-in-room' });
    await rooms.createRoom({ name: 'stand-in-room' }); // already there: LiveKit sends nothing
    await rooms.deleteRoom('stand-in-room');

    const received = await receiver.waitFor((all) => all.length >= 3, 10_000);
    const verifier = new WebhookReceiver('devkey', 'secret');
    const events = await Promise.all(received.map((r) => verifier.receive(r.body, r.headers.authorization)));
    expect(events.map((e) => [e.event, e.room?.name, e.room?.sid])).toEqual([
      ['room_started', 'stand-in-room', room.sid], // refused with 503 ...
      ['room_started', 'stand-in-room', room.sid], // ... and sent again
      ['room_finished', 'stand-in-room', room.sid],
    ]);
    expect(received[0]!.headers['content-type']).toBe('application/webhook+json');
  });
});
