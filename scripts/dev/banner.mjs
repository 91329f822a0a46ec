// The last thing `npm run dev` prints: where the API is, whether rooms can be created, and a request that works.
import { LIVEKIT_INSTALL_URL } from './livekit.mjs';

const dollars = (cents) => `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

/**
 * @param {{ port: number|string, rooms: { available: boolean, startedHere: boolean, standIn?: boolean, url: string, why?: string, hint?: string },
 *           agent: string, account: null | { api_key: string, organization_id: string, created: boolean, credit_cents: number, file: string },
 *           sessions?: null | { url?: string, external?: string }, consoleEnabled?: boolean }} state
 */
export function bannerLines({ port, rooms, agent, account, sessions = null, consoleEnabled = false }) {
  const base = `http://127.0.0.1:${port}`;
  const lines = [
    '────────────────────────────────────────────────────────────────────────',
    `API:         ${base}   docs: ${base}/docs   OpenAPI: ${base}/openapi.json`,
    ...(consoleEnabled ? [`Console:     ${base}/console (paste the API key)`] : []),
    ...(rooms.standIn
      ? [
          `Rooms:       can be created, on the LiveKit STAND-IN at ${rooms.url} (${rooms.why}), started by npm run dev:`,
          "             the project's test double of LiveKit's server API; it sends room_started/room_finished webhooks",
          '             but carries NO media: no client can join a call, so no participant joins, no translator, no minutes.',
          `             For real calls: install livekit-server (${LIVEKIT_INSTALL_URL}) and run npm run dev again.`,
        ]
      : [
          rooms.available
            ? `Rooms:       can be created (LiveKit at ${rooms.url}${rooms.startedHere ? ', started by npm run dev' : ''})`
            : `Rooms:       CANNOT be created: ${rooms.hint}`,
        ]),
    `Translator:  ${agent}`,
  ];
  if (account) {
    const auth = `-H "Authorization: Bearer ${account.api_key}"`;
    lines.push(
      `Dev org:     ${account.organization_id} (${account.created ? 'created now' : 'kept'} in ${account.file}), credit ${dollars(account.credit_cents)}`,
      `API key:     ${account.api_key}`,
      'Key again:   npm run -s cli -- dev:account | jq -r .api_key',
      'Try it:',
      rooms.available
        ? `  curl -s -X POST ${base}/v1/rooms ${auth} -H "Content-Type: application/json" -d '{}'`
        : `  curl -s ${base}/v1/billing/credit ${auth}`,
      `More credit: npm run -s cli -- credit:grant --org ${account.organization_id} --cents 10000 (no Stripe needed)`,
    );
  }
  if (sessions?.url) {
    lines.push(
      `Sessions:    a DEVELOPMENT identity provider (JWKS ${sessions.url}); a session token for any email:`,
      '             npm run -s cli -- dev:session --email you@example.com | jq -r .session_token',
    );
  } else if (sessions?.external) lines.push(`Sessions:    verified against ${sessions.external} (AUTH_JWKS_URL)`);
  lines.push('Stop with Ctrl-C.', '────────────────────────────────────────────────────────────────────────');
  return lines;
}
