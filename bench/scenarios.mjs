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
//   expect    status the request must answer with (default 200): checked once before the run, and any other
//             status during the run is counted as an error
//   baseline  request on the baseline server (default { method: 'GET', path: '/baseline/users/me' }); it is
//             measured in rounds alternating with the scenario's, so both see the same machine load
//   target    { ratio } = minimum of (API req/s ÷ baseline req/s); optionally { maxP99Ms } as well
//
// Later scenarios (rooms/token, invites, webhooks, billing) are added here; the harness needs no change.

/** @typedef {{ ratio?: number, maxP99Ms?: number }} Target */

export const SCENARIOS = [
  {
    name: 'GET /v1/users/me (API key)',
    method: 'GET',
    path: '/v1/users/me',
    target: { ratio: 0.6 },
  },
];
