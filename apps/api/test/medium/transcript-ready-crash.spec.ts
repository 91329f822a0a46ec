import type { ChildProcess } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { TranscriptIntakeService } from '../../src/modules/transcripts/transcript-intake.service';
import { createOrganization } from '../support/factories';
import { createRoom, startRoomsHarness, type RoomsHarness } from '../support/rooms-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { spawnWorkerChild } from '../support/worker-child';

/**
 * The worker that decided a room's `transcript.ready` is killed (SIGKILL) right after the decision,
 * with the delivery unanswered: a worker started after it delivers the same event, and no second
 * event is ever decided.
 */
describe('a worker killed between deciding transcript.ready and delivering it', () => {
  let h: RoomsHarness;
  let r: WebhookReceiver;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    // This process only serves the API; the sweeps and deliveries run in child processes we can kill.
    h = await startRoomsHarness({ RUN_QUEUE_WORKERS: 'false', QUEUE_LOCK_DURATION_MS: '1000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await r.close();
    await h.close();
  });

  function startWorker(): Promise<ChildProcess> {
    const { child, ready } = spawnWorkerChild(h.t.config, {
      QUEUE_LOCK_DURATION_MS: '1000',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      LIVEKIT_API_URL: h.livekit.url,
      LIVEKIT_API_KEY: h.livekit.apiKey,
      LIVEKIT_API_SECRET: h.livekit.apiSecret,
    });
    workers.push(child);
    return ready;
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('delivers the one event decided, with the same id, once the next worker runs', async () => {
    const org = await createOrganization(h.t);
    const endpoint = await h.t
      .http()
      .post('/v1/webhook-endpoints')
      .set(org.auth)
      .send({ url: r.url, events: ['transcript.ready'] });
    expect(endpoint.status).toBe(201);
    r.reply = (_request, index) => (index === 0 ? 'hang' : { status: 204 });
    const room = await createRoom(h, org);
    const now = Date.now();
    const stored = await h.t.app.get(TranscriptIntakeService).record({
      type: 'segment',
      roomId: room.id,
      livekitRoom: room.livekitName,
      at: new Date(now).toISOString(),
      segmentId: 'crash-1',
      participantIdentity: 'alice',
      language: 'en',
      text: 'before the crash',
      translation: { language: 'es', text: 'antes del fallo' },
      startedAt: new Date(now - 2_000).toISOString(),
      endedAt: new Date(now - 1_000).toISOString(),
    });
    expect(stored).toBe(true);
    await h.t.http().delete(`/v1/rooms/${room.id}`).set(org.auth).expect(204);

    const first = await startWorker();
    await until(
      async () =>
        (
          (await h.t.db.query(`SELECT transcript_closed_at FROM rooms WHERE id = $1`, [room.id])) as { transcript_closed_at: Date | null }[]
        )[0],
      (row) => row.transcript_closed_at !== null,
      'the transcript was never closed',
    );
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    const second = await startWorker();
    try {
      const deliveries = await until(
        async () =>
          (await h.t.db.query(`SELECT status FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.body.id])) as { status: string }[],
        (rows) => rows.length > 0 && rows.every((row) => row.status === 'delivered'),
        'the delivery never completed',
      );
      expect(deliveries).toEqual([{ status: 'delivered' }]);
      const received = r.received.filter((x) => x.event.type === 'transcript.ready');
      expect(received.length).toBeGreaterThanOrEqual(1);
      expect(new Set(received.map((x) => x.headers['webhook-id'])).size).toBe(1);
      const event = new Webhook(endpoint.body.secret as string).verify(
        received[received.length - 1].body,
        received[received.length - 1].headers as Record<string, string>,
      ) as {
        data: { room_id: string; segments: number };
      };
      expect(event.data).toEqual(expect.objectContaining({ room_id: room.id, segments: 1 }));
      const [{ events }] = (await h.t.db.query(
        `SELECT count(*)::int AS events FROM webhook_events WHERE organization_id = $1 AND type = 'transcript.ready'`,
        [org.organizationId],
      )) as { events: number }[];
      expect(events).toBe(1);
    } finally {
      second.kill('SIGKILL');
    }
  }, 90_000);
});
