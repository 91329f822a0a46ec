/**
 * The LiveKit stand-in: the LiveKit double (Twirp server API) on a fixed port, sending LiveKit's signed
 * room webhooks, for machines where no LiveKit exists. Besides tests, only `npm run dev` starts it
 * (`node -r @swc-node/register apps/api/test/support/livekit-stand-in.ts --config <livekit.yaml>`),
 * saying so, when nothing answers at LIVEKIT_URL and no `livekit-server` is on PATH.
 *
 * What it does: RoomService and AgentDispatchService as the double answers them, and `room_started`
 * (a room created through the API) / `room_finished` (a room deleted) webhooks, signed as LiveKit
 * signs them, to each URL of the config's `webhook.urls`, retried a few times.
 * What it does not: media. No client can connect (no WebRTC, no signalling on /rtc), so no
 * `participant_*` or `track_*` webhook is ever sent and no agent can register.
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { startLiveKitDouble, type LiveKitDouble, type RoomJson } from './livekit-double';
import { postLiveKitWebhook, roomFinished, roomStarted, type WebhookEventJson } from './livekit-webhooks';

export interface LiveKitStandInOptions {
  apiKey: string;
  apiSecret: string;
  port: number;
  /** Where LiveKit's webhooks go (livekit-server's `webhook.urls`). */
  webhookUrls: string[];
  /** One line per undeliverable webhook. */
  warn?: (line: string) => void;
}

/** livekit-server's config as `npm run dev` writes it (port, keys, webhook), read from YAML. */
export function standInOptionsFromConfig(yaml: string): LiveKitStandInOptions {
  const config = (YAML.parse(yaml) ?? {}) as {
    port?: number;
    keys?: Record<string, string>;
    webhook?: { api_key?: string; urls?: string[] };
  };
  const keys = Object.entries(config.keys ?? { devkey: 'secret' });
  const [apiKey, apiSecret] = keys.find(([key]) => key === config.webhook?.api_key) ?? keys[0] ?? ['devkey', 'secret'];
  return { apiKey, apiSecret, port: Number(config.port ?? 7880), webhookUrls: config.webhook?.urls ?? [] };
}

const RETRY_DELAYS_MS = [500, 2000, 5000];

export async function startLiveKitStandIn(options: LiveKitStandInOptions): Promise<LiveKitDouble> {
  const { apiKey, apiSecret, webhookUrls, warn = () => undefined } = options;
  // One room's webhooks go out in the order they happened, as livekit-server sends them.
  let sending = Promise.resolve();
  const send = (event: WebhookEventJson) => {
    for (const url of webhookUrls) {
      sending = sending.then(async () => {
        for (let attempt = 0; ; attempt++) {
          const outcome = await postLiveKitWebhook(url, url, event, { apiKey, apiSecret }).then(
            (response) => (response.ok ? null : `HTTP ${response.status}`),
            (error: Error) => error.message,
          );
          if (outcome === null) return;
          const delay = RETRY_DELAYS_MS[attempt];
          if (delay === undefined) {
            warn(`LiveKit stand-in: ${event.event} of ${event.room?.name ?? '?'} not delivered to ${url}: ${outcome}`);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      });
    }
  };
  return startLiveKitDouble({
    apiKey,
    apiSecret,
    port: options.port,
    onRoomEvent: (event, room: RoomJson) => send(event === 'room_started' ? roomStarted(room) : roomFinished(room)),
  });
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--config');
  const options = standInOptionsFromConfig(at >= 0 ? readFileSync(args[at + 1] ?? '', 'utf8') : '');
  startLiveKitStandIn({ ...options, warn: (line) => process.stderr.write(`${line}\n`) }).then(
    (double) =>
      process.stdout.write(
        `LiveKit stand-in serving ${double.url} (server API; webhooks to ${options.webhookUrls.join(', ') || 'nowhere'}; no media)\n`,
      ),
    (error: Error) => {
      process.stderr.write(`LiveKit stand-in: ${error.message}\n`);
      process.exit(1);
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
}
