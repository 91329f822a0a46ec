import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser, type HTTPRequest, type Page } from 'puppeteer-core';
import { createOrganization, type TestOrganization } from '../support/factories';
import { listenLocally } from '../support/listen-locally';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { translatorEventsDrained } from '../support/translator-events';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');
/** Debian's Chromium (.ci/run installs it); puppeteer-core never downloads a browser. */
const CHROMIUM = '/usr/bin/chromium';
const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';

type EventBody = { id: string; type: string; created_at: string; data: Record<string, unknown> };

/**
 * The console page in a real browser against the real API (Postgres, Redis, the LiveKit double's
 * webhooks): signing in with a key, a room created through the API appearing without a reload, a
 * participant joining, a transcript line spoken by translate:file, the event stream cut and resumed
 * with no event lost, the credit burn and the usage chart.
 */
describe('the console in a browser', () => {
  let h: RoomsHarness;
  let base: string;
  let browser: Browser;
  beforeAll(async () => {
    h = await startRoomsHarness({ EVENT_STREAM_HEARTBEAT_MS: '1000' });
    base = await listenLocally(h.t.server);
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Chromium's sandbox refuses to run as root (CI containers).
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });

  /** The organization's event log as GET /v1/events shows it. */
  const logged = async (org: TestOrganization) =>
    ((await h.t.http().get('/v1/events?limit=200').set(org.auth).expect(200)).body.items as EventBody[]).map((e) => e.id);
  const feed = (page: Page) => page.$$eval('[data-testid="event"]', (items) => items.map((li) => li.getAttribute('data-event-id')));
  const text = (page: Page, testid: string) => page.$eval(`[data-testid="${testid}"]`, (el) => el.textContent?.trim());
  /** Waits until the feed shows each of these events. */
  const feedShows = async (page: Page, ids: string[]) => {
    for (const id of ids) await page.waitForSelector(`[data-testid="event"][data-event-id="${id}"]`);
  };

  it('shows live rooms, participants, a growing transcript, every event across a cut stream, the burn and the usage', async () => {
    const org = await createOrganization(h.t, { creditCents: 900 });
    const page = await browser.newPage();
    const uncaught: string[] = [];
    page.on('pageerror', (error) => uncaught.push(String(error)));
    // Ticket requests can be refused, as an API under load may; every stream opened is recorded.
    let refuseTickets = false;
    let ticketRefused: () => void = () => undefined;
    const streams: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request: HTTPRequest) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/events/stream') streams.push(url.search);
      if (refuseTickets && request.method() === 'POST' && url.pathname === '/v1/events/stream-tickets') {
        ticketRefused();
        void request.respond({ status: 503, contentType: 'application/json', body: JSON.stringify({ detail: 'Not now.' }) });
      } else {
        void request.continue();
      }
    });

    // Signing in: a key the API refuses is said so; a good one is kept for this tab only, and the stream opens.
    await page.goto(`${base}/console`, { waitUntil: 'domcontentloaded' });
    await page.type('[data-testid="api-key"]', 'trk_not_a_key_of_anyone');
    await page.click('[data-testid="sign-in"]');
    await page.waitForSelector('[data-testid="sign-in-error"]:not([hidden])');
    expect(await text(page, 'sign-in-error')).toMatch(/^The API refused the key \(401: /);
    await page.type('[data-testid="api-key"]', org.apiKey);
    await page.click('[data-testid="sign-in"]');
    await page.waitForSelector('[data-testid="stream-status"][data-state="live"]');
    expect(await page.evaluate("sessionStorage.getItem('translation-rooms.console.api-key')")).toBe(org.apiKey);
    expect(await text(page, 'signed-in')).toContain(org.email);
    expect(await text(page, 'no-live-rooms')).toBe('No live room.');

    // A room created through the API appears within 2 s, without a reload.
    const room = await createRoom(h, org);
    await page.waitForSelector(`[data-testid="room"][data-room-id="${room.id}"]`, { timeout: 2000 });
    const inRoom = `[data-testid="room"][data-room-id="${room.id}"]`;

    // A participant joining (LiveKit's webhook) shows in the room, and the stream brings its events.
    await token(h, org, room.name, { identity: 'alice', languages: ['en'] }).expect(201);
    const now = Math.floor(Date.now() / 1000);
    const alice = { identity: 'alice', sid: 'PA_alice', joinedAt: String(now - 90) };
    await webhook(h, events.participantJoined(room.livekitName, alice)).expect(200);
    await page.waitForSelector(`${inRoom}[data-status="active"] [data-testid="participant"][data-identity="alice"][data-connected="true"]`);
    await page.waitForSelector('[data-testid="event"][data-type="participant.joined"][data-cursor]');
    await page.waitForSelector('[data-testid="event"][data-type="room.started"]');

    // The burn: one open connection at 3 cents a minute; 900 cents last 300 minutes.
    await page.waitForSelector('[data-testid="open-connections"][data-value="1"]');
    expect(await text(page, 'balance')).toBe('$9.00');
    expect(await text(page, 'cents-per-minute')).toBe('$0.03 a minute');
    const runsOut = String(await page.$eval('[data-testid="runs-out-at"]', (el) => el.getAttribute('data-value')));
    const burn = (await h.t.http().get('/v1/billing/burn').set(org.auth).expect(200)).body as { runs_out_at: string };
    expect(Math.abs(Date.parse(runsOut) - Date.parse(burn.runs_out_at))).toBeLessThan(60_000);
    expect(Math.abs(Date.parse(burn.runs_out_at) - (Date.now() + 300 * 60_000))).toBeLessThan(60_000);

    // A transcript line: translate:file speaks a recording into the room, as README's walk does.
    await page.click(`${inRoom} [data-testid="show-transcript"]`);
    await page.waitForSelector(`${inRoom} [data-testid="show-transcript"][aria-pressed="true"]`);
    await run(
      'npm',
      ['run', '-s', 'translate:file', '--', '--from', 'en', '--to', 'es', '--in', CLIP, '--room', room.id, '--identity', 'alice'].concat([
        '--api-key',
        org.apiKey,
      ]),
      {
        cwd: ROOT,
        env: {
          ...process.env,
          TRANSLATOR_PIPELINE: 'local',
          OPENAI_API_KEY: '',
          API_URL: base,
          REDIS_URL: h.t.config.redisUrl,
          QUEUE_PREFIX: h.t.config.queuePrefix,
        },
      },
    );
    await translatorEventsDrained(h.t);
    const segments = (await h.t.http().get(`/v1/rooms/${room.id}/transcript`).set(org.auth).expect(200)).body.items as { id: string }[];
    expect(segments.length).toBeGreaterThan(0);
    await page.waitForSelector(`[data-testid="transcript-segment"][data-segment-id="${segments.at(-1)!.id}"]`);
    const lines = await page.$$eval('[data-testid="transcript-segment"]', (items) => items.map((li) => li.textContent ?? ''));
    expect(lines.join('\n')).toMatch(/alice .*young man.* → .*hombre/);

    // The stream is cut (the server drops every connection) and a ticket refused while events happen:
    // the page reconnects from the last event it saw and shows every event once.
    const beforeCut = streams.length;
    refuseTickets = true;
    const refused = new Promise<void>((resolve) => (ticketRefused = resolve));
    h.t.server.closeAllConnections();
    await refused;
    await page.waitForSelector('[data-testid="stream-status"][data-state="reconnecting"]');
    const other = await createRoom(h, org);
    await token(h, org, other.name, { identity: 'bob', languages: ['es'] }).expect(201);
    await webhook(h, events.participantJoined(other.livekitName, { identity: 'bob', sid: 'PA_bob', joinedAt: String(now) })).expect(200);
    await webhook(h, events.participantLeft(room.livekitName, alice, { createdAt: now })).expect(200);
    await settled(h);
    const missed = await logged(org);
    refuseTickets = false;
    await page.waitForSelector('[data-testid="stream-status"][data-state="live"]');
    const reopened = new URLSearchParams(streams.at(-1));
    expect(streams.length).toBeGreaterThan(beforeCut);
    expect(reopened.get('last_event_id')).toMatch(/^\d+$/);
    await feedShows(page, missed);
    // Those that happened during the cut came through the stream's replay (they carry its cursor).
    const replayed = await page.$$eval('[data-testid="event"][data-type="participant.left"]', (items) =>
      items.map((li) => li.getAttribute('data-cursor')),
    );
    expect(replayed).toEqual([expect.stringMatching(/^\d+$/)]);
    await page.waitForSelector(`[data-testid="room"][data-room-id="${other.id}"] [data-testid="participant"][data-identity="bob"]`);
    await page.waitForSelector(`${inRoom} [data-testid="participant"][data-identity="alice"][data-connected="false"]`);

    // The first room ends: it leaves the list, its minutes reach the usage chart.
    await webhook(h, events.roomFinished(room.livekitName, { createdAt: now + 1 })).expect(200);
    await settled(h);
    await page.waitForSelector(inRoom, { hidden: true });
    await page.waitForSelector('[data-testid="event"][data-type="room.ended"]');
    await page.waitForSelector('[data-testid="usage-bar"][data-minutes="2"]');
    expect(await page.$$eval('[data-testid="usage-bar"]', (bars) => bars.length)).toBe(14);
    expect(await text(page, 'usage-summary')).toMatch(/^2 connection minutes in 2 rooms, 2 participants/);

    // No event lost, none twice, in commit order: the feed is the organization’s log.
    const log = await logged(org);
    await feedShows(page, log);
    const shown = await feed(page);
    expect(shown).toEqual(log);
    expect(uncaught).toEqual([]);

    const folder = mkdtempSync(path.join(os.tmpdir(), 'console-browser-'));
    const screenshot = path.join(folder, 'console.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`console screenshot: ${screenshot}`);
  }, 180_000);
});
