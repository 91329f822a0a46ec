// Benchmark scenarios of `npm run bench`, one entry per row of the table.
//
// Each scenario is measured against the built API and compared with a bare baseline (bench/baseline-server.mjs:
// NestJS on Express doing one indexed SELECT over a pg.Pool of the same size). Fields:
//   name      label in the table
//   method    HTTP method (default GET)
//   path      request path on the API, e.g. '/v1/users/me'
//   headers   extra request headers; a function (ctx) => headers is accepted too
//   body      request body: a string, or an object sent as JSON
//   auth      true (default) sends `Authorization: Bearer <api key>`; false sends no credentials
//   setup     optional async (ctx) => Partial<{ method, path, headers, body }> run once before measuring, to create
//             data through the API (rooms, invites...). What it returns overrides the fields above.
//             ctx = { baseUrl, baselineUrl, apiKey, databaseUrl, organizationId, userId, fetchJson, query }
//             fetchJson(path, { method, headers, body, auth = true, expect }) -> { status, headers, body }
//             query(sql, params) runs SQL on the bench database (for data the API cannot create)
//   connections  autocannon connections for this row (default BENCH_CONNECTIONS), for a row whose requests
//             queue behind one another by design (one organization's glossary changes run one at a time)
//   expect    status the request must answer with (default 200): checked once before the run, and any other
//             status during the run is counted as an error
//   baseline  request on the baseline server (default { method: 'GET', path: '/baseline/users/me' }); it is
//             measured in rounds alternating with the scenario's, so both see the same machine load
//   target    { ratio } = minimum of (API req/s ÷ baseline req/s); { maxP99Ms }; { maxP50Ratio } = maximum of
//             (API p50 ÷ baseline p50)

import { seedLargeOrganization } from './seed.mjs';

/** @typedef {{ ratio?: number, maxP99Ms?: number, maxP50Ratio?: number }} Target */

const SEED_ROOMS = Number(process.env.BENCH_SEED_ROOMS ?? 100_000);
let seeded = null;

/** The billing and usage rows read a large organization: 100,000 rooms and 1,000,000 connections. */
async function seedOnce(ctx) {
  if (!seeded) {
    process.stderr.write(`bench: seeding ${SEED_ROOMS} rooms with 10 connections each\n`);
    seeded = await seedLargeOrganization(ctx.databaseUrl, ctx.organizationId, { rooms: SEED_ROOMS, perRoom: 10 });
    process.stderr.write(`bench: seeded ${seeded.rooms} rooms, ${seeded.connections} connections in ${seeded.seconds.toFixed(0)} s\n`);
  }
  return seeded;
}

export const SCENARIOS = [
  {
    name: 'GET /v1/users/me (API key)',
    method: 'GET',
    path: '/v1/users/me',
    target: { ratio: 1.2 },
  },
  {
    name: 'POST /v1/rooms/{room_name}/token',
    method: 'POST',
    expect: 201,
    target: { ratio: 0.6 },
    setup: async (ctx) => {
      const room = await ctx.fetchJson('/v1/rooms', {
        method: 'POST',
        body: { room_name: 'bench-token-room', streaming_mode: 'dual' },
        expect: 201,
      });
      return { path: `/v1/rooms/${room.body.room}/token`, body: { languages: ['en'] } };
    },
  },
  {
    name: 'GET /v1/invites/{invite_code}',
    method: 'GET',
    auth: false,
    target: { ratio: 0.7 },
    setup: async (ctx) => {
      const room = await ctx.fetchJson('/v1/rooms', { method: 'POST', body: { room_name: 'bench-invite-room' }, expect: 201 });
      const invite = await ctx.fetchJson(`/v1/rooms/${room.body.id}/invites`, {
        method: 'POST',
        body: { expires_in_seconds: 86400, max_uses: 100 },
        expect: 201,
      });
      return { path: `/v1/invites/${invite.body.invite_code}` };
    },
  },
  {
    name: 'GET /v1/billing/history?expand=participants (offset 0, 100k rooms)',
    method: 'GET',
    target: { maxP50Ratio: 3 },
    setup: async (ctx) => {
      await seedOnce(ctx);
      return { path: '/v1/billing/history?expand=participants' };
    },
  },
  {
    name: 'GET /v1/billing/history?expand=participants (offset 50,000)',
    method: 'GET',
    setup: async (ctx) => {
      await seedOnce(ctx);
      return { path: '/v1/billing/history?expand=participants&offset=50000' };
    },
  },
  {
    name: 'GET /v1/usage/overview (90 days, hourly)',
    method: 'GET',
    target: { maxP50Ratio: 5 },
    setup: async (ctx) => {
      await seedOnce(ctx);
      const end = new Date();
      end.setUTCMinutes(0, 0, 0);
      const start = new Date(end.getTime() - 89 * 86_400_000);
      return {
        path: `/v1/usage/overview?starts_after=${start.toISOString()}&ends_before=${end.toISOString()}&granularity=hour&timezone=Europe/Berlin`,
      };
    },
  },
  {
    // A whole glossary replaced from CSV (extensions.md "Glossaries": 10,000 entries, ≤ 1 MiB), one client at a
    // time: an organization's glossary changes are serialized, so more connections would only queue.
    name: 'PUT /v1/glossaries/{id}/entries (CSV, 10,000 rows)',
    method: 'PUT',
    connections: 1,
    target: { maxP99Ms: 2000 },
    setup: async (ctx) => {
      const glossary = await ctx.fetchJson('/v1/glossaries', { method: 'POST', body: { name: 'bench glossary' }, expect: 201 });
      const rows = Array.from({ length: 10_000 }, (_, i) => `term ${i},término ${i},Begriff ${i}`);
      return {
        path: `/v1/glossaries/${glossary.body.id}/entries`,
        headers: { 'content-type': 'text/csv' },
        body: `en,es,de\r\n${rows.join('\r\n')}\r\n`,
      };
    },
  },
  {
    // A change with its audit write in the same transaction (and a LiveKit CreateRoom): measured, no target.
    name: 'POST /v1/rooms',
    method: 'POST',
    path: '/v1/rooms',
    body: {},
    expect: 201,
  },
  {
    // Another change with its audit write; the organization's key count grows as the row runs.
    name: 'POST /v1/api-keys',
    method: 'POST',
    path: '/v1/api-keys',
    body: { name: 'bench key' },
    expect: 201,
  },
  {
    name: 'GET /v1/billing/credit',
    method: 'GET',
    path: '/v1/billing/credit',
    target: { ratio: 0.8 },
  },
];
