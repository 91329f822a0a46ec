// LiveKit for `npm run dev`: the server of LIVEKIT_URL when it answers, else `livekit-server --dev` from
// PATH on loopback with its webhooks pointed at the API, else (loopback, no livekit-server: a machine that
// reaches only npm and Debian has none) the project's LiveKit stand-in, the test double of LiveKit's server
// API and room webhooks, without media; else one line saying how to get a LiveKit.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LOOPBACK, tcpAnswers } from '../services.mjs';

export const LIVEKIT_INSTALL_URL = 'https://docs.livekit.io/home/self-hosting/local/';
/** The stand-in, a test double that only `npm run dev` starts outside tests (docs/decisions.md). */
export const LIVEKIT_STAND_IN = 'apps/api/test/support/livekit-stand-in.ts';

function hostAndPort(url) {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol === 'https:' || parsed.protocol === 'wss:' ? 443 : 80));
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), hostname: parsed.hostname, port };
}

/** The config `npm run dev` gives livekit-server (YAML; values quoted as JSON strings, which YAML reads as they are). */
export function livekitDevConfig({ port, apiKey, apiSecret, webhookUrl }) {
  const q = (value) => JSON.stringify(String(value));
  return [
    '# Written by `npm run dev`: a LiveKit server in development mode, reporting to the API.',
    `port: ${port}`,
    'keys:',
    `  ${q(apiKey)}: ${q(apiSecret)}`,
    'webhook:',
    `  api_key: ${q(apiKey)}`,
    '  urls:',
    `    - ${q(webhookUrl)}`,
    '',
  ].join('\n');
}

/**
 * @param {{ livekit: { url: string, apiUrl: string, apiKey: string, apiSecret: string } }} config the API's validated config
 * @returns {Promise<{ available: boolean, startedHere: boolean, standIn?: boolean, url: string, hint?: string }>}
 */
export async function ensureLivekit({ config, apiPort, supervisor, say, dataDir, root }) {
  const { url, apiUrl, apiKey, apiSecret } = config.livekit;
  const { host, hostname, port } = hostAndPort(apiUrl);
  if (await tcpAnswers(host, port)) return { available: true, startedHere: false, url };
  const unavailable = (why) => ({
    available: false,
    startedHere: false,
    url,
    hint:
      `${why}. Get a LiveKit server: install livekit-server (${LIVEKIT_INSTALL_URL}) and run npm run dev again, ` +
      'or `docker compose --profile dev up livekit-dev`, or set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET to a LiveKit Cloud project (in .env).',
  });
  if (!LOOPBACK.has(hostname)) return unavailable(`nothing answers at ${apiUrl}`);
  mkdirSync(dataDir, { recursive: true });
  const configFile = path.join(dataDir, `livekit-${port}.yaml`);
  const webhookUrl = `http://127.0.0.1:${apiPort}/v1/webhooks/livekit`;
  writeFileSync(configFile, livekitDevConfig({ port, apiKey, apiSecret, webhookUrl }));
  if (spawnSync('sh', ['-c', 'command -v livekit-server']).status !== 0) {
    const why = `nothing answers at ${apiUrl} and livekit-server is not on PATH`;
    say(`LiveKit: ${why}: starting the LiveKit stand-in on port ${port} (server API and room webhooks to ${webhookUrl}; no media).`);
    const entry = supervisor.start(
      'LiveKit stand-in',
      process.execPath,
      ['-r', '@swc-node/register', LIVEKIT_STAND_IN, '--config', configFile],
      {
        cwd: root,
        optional: true,
      },
    );
    try {
      await supervisor.waitUntil(entry, () => tcpAnswers(host, port), 30_000);
    } catch (error) {
      return unavailable(`${why}, and the LiveKit stand-in did not start: ${error.message}`);
    }
    return { available: true, startedHere: true, standIn: true, url, why };
  }
  say(`LiveKit does not answer at ${apiUrl}: starting livekit-server --dev on port ${port} (webhooks to ${webhookUrl}).`);
  const entry = supervisor.start('LiveKit', 'livekit-server', ['--dev', '--bind', '127.0.0.1', '--config', configFile], {
    cwd: root,
    optional: true,
  });
  try {
    await supervisor.waitUntil(entry, () => tcpAnswers(host, port), 20_000);
  } catch (error) {
    return unavailable(error.message);
  }
  return { available: true, startedHere: true, url };
}
