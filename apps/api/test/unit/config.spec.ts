import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ConfigError, loadConfig } from '../../src/config/app-config';

const ROOT = path.resolve(__dirname, '../../../..');

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/translation_rooms');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.livekit).toEqual({
      url: 'ws://127.0.0.1:7880',
      apiUrl: 'http://127.0.0.1:7880',
      apiKey: 'devkey',
      apiSecret: 'secret',
      reconcileSeconds: 30,
    });
    expect(config.credit).toEqual({ currency: 'usd', minTopupCents: 500, maxTopupCents: 100000 });
    expect(config.rates).toEqual({ participantCentsPerMinute: 3, translatorCentsPerMinute: 6 });
    expect(config.stripe.secretKey).toBeNull();
    // Deliveries in flight to one endpoint (issue 28: a burst of room events is not held ~0.5 s behind 16).
    expect(config.webhooks.endpointConcurrency).toBe(64);
    expect(config.auditRetentionDays).toBe(400);
  });

  it('reads AUDIT_RETENTION_DAYS, refusing what cannot be a number of days', () => {
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: '0' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: 'forever' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });

  it('derives the LiveKit API address from a wss URL', () => {
    expect(loadConfig({ LIVEKIT_URL: 'wss://rtc.example.com' }).livekit.apiUrl).toBe('https://rtc.example.com');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ HOST: 'localhost' }, 'HOST'],
    [{ HOST: '0.0.0.0:3000' }, 'HOST'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ MIN_TOPUP_CENTS: '900', MAX_TOPUP_CENTS: '800' }, 'MAX_TOPUP_CENTS'],
    [{ CREDIT_CURRENCY: 'dollars' }, 'CREDIT_CURRENCY'],
    [{ RATE_TRANSLATOR_CENTS_PER_MINUTE: '-1' }, 'RATE_TRANSLATOR_CENTS_PER_MINUTE'],
    [{ STRIPE_API_URL: 'ftp://stripe' }, 'STRIPE_API_URL'],
    [{ NODE_ENV: 'production' }, 'INVITE_SIGNING_SECRET'],
    [{ NODE_ENV: 'production', INVITE_SIGNING_SECRET: 's' }, 'API_KEY_PEPPER'],
    [{ RUN_QUEUE_WORKERS: 'maybe' }, 'RUN_QUEUE_WORKERS'],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '5s' }, 'DATABASE_STATEMENT_TIMEOUT_MS'],
    [{ REDIS_COMMAND_TIMEOUT_MS: '0' }, 'REDIS_COMMAND_TIMEOUT_MS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000', HTTP_REQUEST_TIMEOUT_MS: '30000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ LIVEKIT_RECONCILE_SECONDS: '4' }, 'LIVEKIT_RECONCILE_SECONDS'],
    [{ LIVEKIT_RECONCILE_SECONDS: 'often' }, 'LIVEKIT_RECONCILE_SECONDS'],
    [{ CONSOLE_ENABLED: 'yes' }, 'CONSOLE_ENABLED'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${name}`));
  });

  it('serves the console outside production unless CONSOLE_ENABLED turns it off', () => {
    expect(loadConfig({}).http.consoleEnabled).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).http.consoleEnabled).toBe(true);
    expect(loadConfig({ CONSOLE_ENABLED: 'false' }).http.consoleEnabled).toBe(false);
    expect(loadConfig({ CONSOLE_ENABLED: '' }).http.consoleEnabled).toBe(true);
  });

  it('validates DATABASE_POOL_SIZE like every other variable', () => {
    expect(loadConfig({}).databasePoolSize).toBe(20);
    expect(loadConfig({ DATABASE_POOL_SIZE: '5' }).databasePoolSize).toBe(5);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(/^DATABASE_POOL_SIZE must be between 1 and 1000/);
  });

  it('reads .env of the working directory, the environment winning over it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dotenv-'));
    writeFileSync(path.join(dir, '.env'), 'PORT=eighty\n');
    const start = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['-r', '@swc-node/register', path.join(ROOT, 'apps/api/src/main.ts')], {
        cwd: dir,
        env: { ...process.env, SWC_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'), NODE_PATH: path.join(ROOT, 'node_modules'), ...env },
        encoding: 'utf8',
        timeout: 60_000,
      }).stderr.trim();
    try {
      expect(start({})).toBe('Invalid configuration: PORT must be a whole number, got "eighty"');
      expect(start({ PORT: 'seventy' })).toBe('Invalid configuration: PORT must be a whole number, got "seventy"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('stops the API at start with one line naming the bad variable', () => {
    const result = spawnSync(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(['Invalid configuration: PORT must be a whole number, got "eighty"']);
  }, 60_000);

  describe('in production', () => {
    const SAFE = {
      NODE_ENV: 'production',
      LIVEKIT_API_KEY: 'APIprodKey',
      LIVEKIT_API_SECRET: 'l'.repeat(40),
      INVITE_SIGNING_SECRET: 'i'.repeat(32),
      API_KEY_PEPPER: 'p'.repeat(32),
    };
    const REFUSED: [string, Record<string, string | undefined>, string][] = [
      ['LiveKit key missing', { LIVEKIT_API_KEY: undefined }, 'LIVEKIT_API_KEY'],
      ['LiveKit secret missing', { LIVEKIT_API_SECRET: undefined }, 'LIVEKIT_API_SECRET'],
      ["LiveKit's dev pair", { LIVEKIT_API_KEY: 'devkey', LIVEKIT_API_SECRET: 'secret' }, 'LIVEKIT_API_KEY'],
      ["LiveKit's dev key with a real secret", { LIVEKIT_API_KEY: 'devkey' }, 'LIVEKIT_API_KEY'],
      ['Stripe key without webhook secret', { STRIPE_SECRET_KEY: 'sk_live_x' }, 'STRIPE_WEBHOOK_SECRET'],
      ['a short LiveKit secret', { LIVEKIT_API_SECRET: 'short-secret' }, 'LIVEKIT_API_SECRET'],
      ['a short invite secret', { INVITE_SIGNING_SECRET: 'i'.repeat(31) }, 'INVITE_SIGNING_SECRET'],
      ['a one-letter pepper', { API_KEY_PEPPER: 'a' }, 'API_KEY_PEPPER'],
    ];

    it('starts from safe settings', () => {
      expect(loadConfig(SAFE).env).toBe('production');
      expect(loadConfig({ ...SAFE, STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }).stripe.webhookSecret).toBe(
        'whsec_x',
      );
    });

    it('serves the console only when CONSOLE_ENABLED turns it on', () => {
      expect(loadConfig(SAFE).http.consoleEnabled).toBe(false);
      expect(loadConfig({ ...SAFE, CONSOLE_ENABLED: 'true' }).http.consoleEnabled).toBe(true);
      expect(loadConfig({ ...SAFE, CONSOLE_ENABLED: '1' }).http.consoleEnabled).toBe(true);
    });

    it('allows the dev pair outside production', () => {
      expect(loadConfig({ NODE_ENV: 'development' }).livekit.apiKey).toBe('devkey');
    });

    it.each(REFUSED)('refuses %s, naming the variable', (_, change, name) => {
      const env = { ...SAFE, ...change };
      expect(() => loadConfig(env)).toThrow(new RegExp(`^${name}`));
    });

    it('stops the API process at start with one line naming the variable, for each refused setting', async () => {
      const run = (change: Record<string, string | undefined>) =>
        new Promise<{ status: number | null; stderr: string }>((resolve) => {
          const env: Record<string, string | undefined> = { ...process.env, ...SAFE, ...change };
          for (const name of Object.keys(change)) if (change[name] === undefined) delete env[name];
          const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/main.ts'], { cwd: ROOT, env });
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('exit', (status) => resolve({ status, stderr }));
        });
      const results = await Promise.all(REFUSED.map(([, change]) => run(change)));
      for (const [i, [, , name]] of REFUSED.entries()) {
        expect(results[i].status).toBe(1);
        const lines = results[i].stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${name} `));
      }
    }, 90_000);
  });

  it('refuses to start on a database with pending migrations', async () => {
    const base = new URL(process.env.TEST_DATABASE_BASE_URL ?? '');
    const name = `trk_test_${process.env.TEST_RUN_ID ?? 'x'}_unmigrated`;
    base.pathname = '/postgres';
    const admin = new Client({ connectionString: base.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    try {
      base.pathname = `/${name}`;
      const result = spawnSync(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: base.toString(), PORT: '0' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('pending migrations');
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  }, 60_000);
});
