// The "hostile body" row of `npm run bench`: GET /v1/users/me p99 while one client sends, at 4 requests/s,
// the worst body each endpoint accepts (the largest body its route reads, shaped to cost the most: as many
// members as fit), beside the same p99 without it. Target: p99 under attack ≤ 2 × the quiet p99.
import autocannon from 'autocannon';

const ATTACK_RATE_PER_SECOND = 4;
const API_BODY_LIMIT = 16 * 1024;
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/** A JSON object of as many small members as fit in `bytes`. */
function manyMembers(bytes) {
  const parts = [];
  let size = 2;
  for (let i = 0; ; i++) {
    const part = `"k${i}":${i}`;
    if (size + part.length + 1 > bytes) break;
    parts.push(part);
    size += part.length + 1;
  }
  return `{${parts.join(',')}}`;
}

/** Nested lists as deep as fit in `bytes`: the deepest shape a route reads before refusing it. */
function deeplyNested(bytes) {
  const depth = Math.floor((bytes - 20) / 2);
  return `{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

function hostileRequests(apiKey) {
  const auth = { authorization: `Bearer ${apiKey}` };
  const json = { 'content-type': 'application/json' };
  const forged = `${'A'.repeat(22)}.${'B'.repeat(43)}`;
  const wide = manyMembers(API_BODY_LIMIT - 64);
  const deep = deeplyNested(API_BODY_LIMIT - 64);
  const wideWebhook = manyMembers(WEBHOOK_BODY_LIMIT - 64);
  return [
    { method: 'POST', path: `/v1/invites/${forged}/join`, headers: json, body: wide },
    { method: 'POST', path: '/v1/api-keys', headers: { ...auth, ...json }, body: wide },
    { method: 'POST', path: '/v1/rooms', headers: { ...auth, ...json }, body: deep },
    { method: 'POST', path: '/v1/rooms/bench-attack/token', headers: { ...auth, ...json }, body: wide },
    { method: 'POST', path: '/v1/billing/checkout', headers: { ...auth, ...json }, body: deep },
    {
      method: 'POST',
      path: '/v1/webhooks/livekit',
      headers: { authorization: 'Bearer forged', 'content-type': 'application/webhook+json' },
      body: wideWebhook,
    },
    { method: 'POST', path: '/v1/webhooks/stripe', headers: { 'stripe-signature': 't=1,v1=forged', ...json }, body: wideWebhook },
  ];
}

/** Sends the hostile requests round-robin at a fixed rate until stopped; counts the answers by status. */
function startAttacker(baseUrl, apiKey) {
  const requests = hostileRequests(apiKey);
  const statuses = {};
  let sent = 0;
  const inflight = new Set();
  const timer = setInterval(() => {
    const spec = requests[sent++ % requests.length];
    const request = fetch(new URL(spec.path, baseUrl), { method: spec.method, headers: spec.headers, body: spec.body })
      .then(async (response) => {
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      })
      .catch(() => (statuses.error = (statuses.error ?? 0) + 1))
      .finally(() => inflight.delete(request));
    inflight.add(request);
  }, 1000 / ATTACK_RATE_PER_SECOND);
  return async () => {
    clearInterval(timer);
    await Promise.all(inflight);
    return { sent, statuses };
  };
}

async function p99Of(baseUrl, apiKey, seconds, connections) {
  const result = await autocannon({
    url: new URL('/v1/users/me', baseUrl).toString(),
    headers: { authorization: `Bearer ${apiKey}` },
    connections,
    duration: seconds,
  });
  return { p99: result.latency.p99, p50: result.latency.p50, rps: result.requests.average, non2xx: result.non2xx };
}

/**
 * Quiet and attacked runs alternate (quiet, attacked, attacked, quiet), so drift in the machine's load hits
 * both alike. A moderate load (10 connections) is measured: the row asks how much the hostile bodies take
 * from everyone else, not how the API behaves at saturation.
 */
export async function measureAttack(baseUrl, apiKey, { seconds = 10, connections = 10 } = {}) {
  const quiet = [];
  const attacked = [];
  let attack = { sent: 0, statuses: {} };
  for (const order of [
    ['quiet', 'attacked'],
    ['attacked', 'quiet'],
  ]) {
    for (const side of order) {
      if (side === 'quiet') {
        quiet.push(await p99Of(baseUrl, apiKey, seconds / 2, connections));
      } else {
        const stop = startAttacker(baseUrl, apiKey);
        attacked.push(await p99Of(baseUrl, apiKey, seconds / 2, connections));
        const round = await stop();
        attack.sent += round.sent;
        for (const [status, n] of Object.entries(round.statuses)) attack.statuses[status] = (attack.statuses[status] ?? 0) + n;
      }
    }
  }
  const mean = (runs, key) => runs.reduce((sum, run) => sum + run[key], 0) / runs.length;
  const quietP99 = mean(quiet, 'p99');
  const attackedP99 = mean(attacked, 'p99');
  return {
    quietP99,
    attackedP99,
    quietP50: mean(quiet, 'p50'),
    attackedP50: mean(attacked, 'p50'),
    errors: [...quiet, ...attacked].reduce((sum, run) => sum + run.non2xx, 0),
    attack,
    pass: attackedP99 <= 2 * quietP99,
  };
}

export function formatAttackRow(result) {
  const statuses = Object.entries(result.attack.statuses)
    .map(([status, n]) => `${n}×${status}`)
    .join(' ');
  return (
    `| hostile bodies | users/me p50 quiet / attacked ms | users/me p99 quiet ms | users/me p99 attacked ms | hostile requests (answers) | target | pass/fail |\n` +
    `|---|--:|--:|--:|---|---|---|\n` +
    `| worst accepted body per endpoint at ${ATTACK_RATE_PER_SECOND}/s | ${result.quietP50.toFixed(0)} / ${result.attackedP50.toFixed(0)} | ` +
    `${result.quietP99.toFixed(0)} | ${result.attackedP99.toFixed(0)} | ${result.attack.sent} (${statuses}) | p99 attacked ≤ 2 × quiet | ` +
    `${result.pass && result.errors === 0 ? 'pass' : 'FAIL'} |\n\n`
  );
}
