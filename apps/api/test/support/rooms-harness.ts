import { startLiveKitDouble, type LiveKitDouble } from './livekit-double';
import { participantJoined, participantLeft, roomFinished, sendLiveKitWebhook, type WebhookEventJson } from './livekit-webhooks';
import type { TestOrganization } from './factories';
import { startTestApp, type TestApp } from './test-app';

export interface RoomsHarness {
  t: TestApp;
  livekit: LiveKitDouble;
  close: () => Promise<void>;
}

/** The app wired to a LiveKit double, as a real deployment is wired to LiveKit. */
export async function startRoomsHarness(env: Record<string, string> = {}): Promise<RoomsHarness> {
  const livekit = await startLiveKitDouble();
  const t = await startTestApp({
    LIVEKIT_API_URL: livekit.url,
    LIVEKIT_API_KEY: livekit.apiKey,
    LIVEKIT_API_SECRET: livekit.apiSecret,
    ...env,
  });
  return {
    t,
    livekit,
    close: async () => {
      await t.close();
      await livekit.close();
    },
  };
}

export async function createRoom(h: RoomsHarness, org: TestOrganization, body: Record<string, unknown> = {}) {
  const res = await h.t.http().post('/v1/rooms').set(org.auth).send(body);
  if (res.status !== 201) throw new Error(`room creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const [{ livekit_name }] = (await h.t.db.query(`SELECT livekit_name FROM rooms WHERE id = $1`, [res.body.id])) as {
    livekit_name: string;
  }[];
  return { id: res.body.id as string, name: res.body.room as string, livekitName: livekit_name };
}

export function token(h: RoomsHarness, org: TestOrganization, roomName: string, body: Record<string, unknown>) {
  return h.t.http().post(`/v1/rooms/${roomName}/token`).set(org.auth).send(body);
}

export function webhook(h: RoomsHarness, event: WebhookEventJson | string) {
  return sendLiveKitWebhook(h.t.http(), '/v1/webhooks/livekit', event, { apiKey: h.livekit.apiKey, apiSecret: h.livekit.apiSecret });
}

/** Waits until every stored webhook event has been applied by the workers. */
export async function settled(h: RoomsHarness, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = (await h.t.db.query(`SELECT count(*)::int AS n FROM inbound_events WHERE processed_at IS NULL`)) as { n: number }[];
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} webhook events still unprocessed`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const events = { participantJoined, participantLeft, roomFinished };
