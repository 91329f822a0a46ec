import { isIP } from 'node:net';

// Longer than ~300 lines on purpose: every environment variable is read, defaulted and checked in this
// one file, so a reader finds the whole configuration (and its error lines) in one place.

/** Typed, validated configuration. Every variable of docs/decisions is read here and nowhere else. */
export interface AppConfig {
  env: 'development' | 'test' | 'production';
  /** The address the API listens on: 0.0.0.0 (every IPv4 interface), :: (every interface) or one address. */
  host: string;
  port: number;
  databaseUrl: string;
  databasePoolSize: number;
  redisUrl: string;
  queuePrefix: string;
  queue: { runWorkers: boolean; lockDurationMs: number; concurrency: number };
  /** How long a stopping process may drain (requests, running jobs) before it exits anyway. */
  shutdownTimeoutMs: number;
  livekit: {
    url: string;
    apiUrl: string;
    apiKey: string;
    apiSecret: string;
    /** How often the rooms and participants the product holds live are checked against LiveKit's own lists (null: never, tests only). */
    reconcileSeconds: number | null;
  };
  stripe: { secretKey: string | null; webhookSecret: string | null; apiUrl: string | null };
  inviteSigningSecret: string;
  apiKeyPepper: string;
  credit: { currency: string; minTopupCents: number; maxTopupCents: number };
  rates: { participantCentsPerMinute: number; translatorCentsPerMinute: number };
  checkout: { successUrl: string | null; cancelUrl: string | null };
  rooms: { departureTimeoutSeconds: number; emptyTimeoutSeconds: number };
  auth: { jwksUrl: string | null; issuer: string | null; audience: string | null };
  http: {
    bodyLimitBytes: number;
    webhookBodyLimitBytes: number;
    corsOrigins: string[];
    docsEnabled: boolean;
    /** The console page at /console (on by default outside production). */
    consoleEnabled: boolean;
    trustProxyHops: number;
  };
  rateLimits: RateLimitConfig;
  /** Longest a single connection is billed for, whatever its events say. */
  maxConnectionMinutes: number;
  /** How long an ended room waits for late LiveKit events before its `room.ended` is sent. */
  roomSettleMs: number;
  maxActiveApiKeysPerOrganization: number;
  /** Audit events older than this many days are deleted (hourly); none sooner. */
  auditRetentionDays: number;
  events: {
    /** Customer events older than this many days are deleted (hourly), with their deliveries. */
    retentionDays: number;
    /** Open event streams an organization may hold at once (across processes). */
    streamsPerOrganization: number;
    /** A comment line on every open stream this often, so proxies keep it open. */
    heartbeatMs: number;
  };
  webhooks: {
    /** Endpoints on loopback, private, link-local or metadata addresses and plain http (development and tests only). */
    allowPrivateUrls: boolean;
    /** Waits before each retry; a delivery is tried once more than this list is long. */
    retryScheduleMs: number[];
    timeoutMs: number;
    /** Endpoints served at once per process (a queue job each), and deliveries in flight to one endpoint. */
    concurrency: number;
    endpointConcurrency: number;
  };
  /**
   * `port`: this process's /metrics listener (0: any free port); the queue worker process uses
   * `workerPort`. `portLikeApi`: the listener keeps to `host` and asks for `token` when set, as the
   * API port does (the worker's, its only endpoint); else every interface, no authentication (the
   * API's METRICS_PORT, for a scraper on the private network).
   */
  metrics: { port: number | null; workerPort: number | null; token: string | null; portLikeApi: boolean };
  logLevel: string;
  /** How long the service waits on each dependency before answering 503 (docs/decisions.md, "Outages"). */
  timeouts: {
    databaseConnectMs: number;
    databaseStatementMs: number;
    databaseLockMs: number;
    redisCommandMs: number;
    livekitMs: number;
    stripeMs: number;
    httpRequestMs: number;
    httpHeadersMs: number;
    /** A request body must have fully arrived this long after its headers (else 408, connection closed). */
    httpBodyMs: number;
  };
}

export interface RateLimitConfig {
  enabled: boolean;
  windowSeconds: number;
  /** Requests per window for one API key or user session. */
  perCredential: number;
  /** Requests per window from one client address to the routes without authentication (invites). */
  perAddress: number;
  /** Failed authentications per window from one client address. */
  failedAuthPerAddress: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const DEV_SECRET = 'dev-only-not-secret';
/** LiveKit's `--dev` credentials: anyone can sign webhooks and tokens with them. */
const LIVEKIT_DEV_PAIR = { key: 'devkey', secret: 'secret' };
const MIN_SECRET_LENGTH = 32;

function str(env: Env, name: string, fallback?: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`${name} is required`);
  }
  return value;
}

function optional(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value === '' ? null : value;
}

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function ipAddress(env: Env, name: string, fallback: string): string {
  const value = optional(env, name) ?? fallback;
  if (isIP(value) === 0) throw new ConfigError(`${name} must be an IP address to listen on (0.0.0.0, ::, 127.0.0.1, …), got "${value}"`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, fallback: string | null, protocols: string[]): string | null {
  const value = optional(env, name) ?? fallback;
  if (value === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${value}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${value}"`);
  }
  return value;
}

function secret(env: Env, name: string, isProduction: boolean): string {
  const value = optional(env, name);
  if (value !== null) return value;
  if (isProduction) throw new ConfigError(`${name} is required outside development and test`);
  return `${DEV_SECRET}-${name}`;
}

/** About 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h (extensions.md). */
const RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000];

function durations(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 20 || parts.some((part) => !/^\d{1,9}$/.test(part))) {
    throw new ConfigError(`${name} must be a comma-separated list of at most 20 millisecond durations, got "${raw}"`);
  }
  return parts.map(Number);
}

function optionalPort(env: Env, name: string): number | null {
  return env[name] === undefined || env[name] === '' ? null : int(env, name, 0, 0, 65535);
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV ?? 'development';
  if (nodeEnv !== 'development' && nodeEnv !== 'test' && nodeEnv !== 'production') {
    throw new ConfigError(`NODE_ENV must be development, test or production, got "${nodeEnv}"`);
  }
  const isProduction = nodeEnv === 'production';
  const livekitUrl = url(env, 'LIVEKIT_URL', 'ws://127.0.0.1:7880', ['ws:', 'wss:', 'http:', 'https:']) as string;
  const livekitApiDefault = livekitUrl.replace(/^ws(s?):/, 'http$1:');
  const minTopup = int(env, 'MIN_TOPUP_CENTS', 500, 1);
  const maxTopup = int(env, 'MAX_TOPUP_CENTS', 100000, 1);
  if (maxTopup < minTopup) throw new ConfigError(`MAX_TOPUP_CENTS must be at least MIN_TOPUP_CENTS (${minTopup})`);
  const currency = str(env, 'CREDIT_CURRENCY', 'usd').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw new ConfigError(`CREDIT_CURRENCY must be a three-letter ISO code, got "${currency}"`);
  const httpRequestMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000);
  const httpHeadersMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 1000, 600_000);
  if (httpHeadersMs > httpRequestMs)
    throw new ConfigError(`HTTP_HEADERS_TIMEOUT_MS must be at most HTTP_REQUEST_TIMEOUT_MS (${httpRequestMs})`);
  const config: AppConfig = {
    env: nodeEnv,
    host: ipAddress(env, 'HOST', '0.0.0.0'),
    port: int(env, 'PORT', 3000, 0, 65535),
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/translation_rooms', ['postgres:', 'postgresql:']) as string,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']) as string,
    queuePrefix: str(env, 'QUEUE_PREFIX', 'trk'),
    queue: {
      runWorkers: bool(env, 'RUN_QUEUE_WORKERS', true),
      lockDurationMs: int(env, 'QUEUE_LOCK_DURATION_MS', 30_000, 500),
      concurrency: int(env, 'QUEUE_CONCURRENCY', 16, 1, 256),
    },
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 5_000, 0, 600_000),
    livekit: {
      url: livekitUrl,
      apiUrl: url(env, 'LIVEKIT_API_URL', livekitApiDefault, ['http:', 'https:']) as string,
      apiKey: str(env, 'LIVEKIT_API_KEY', 'devkey'),
      apiSecret: str(env, 'LIVEKIT_API_SECRET', 'secret'),
      // Off in tests unless set: their LiveKit double lists only what a test put there, and a job
      // scheduler's first run comes at once (after a Redis that lost its data, too).
      reconcileSeconds:
        nodeEnv === 'test' && optional(env, 'LIVEKIT_RECONCILE_SECONDS') === null
          ? null
          : int(env, 'LIVEKIT_RECONCILE_SECONDS', 30, 5, 86_400),
    },
    stripe: {
      secretKey: optional(env, 'STRIPE_SECRET_KEY'),
      webhookSecret: optional(env, 'STRIPE_WEBHOOK_SECRET'),
      apiUrl: url(env, 'STRIPE_API_URL', null, ['http:', 'https:']),
    },
    inviteSigningSecret: secret(env, 'INVITE_SIGNING_SECRET', isProduction),
    apiKeyPepper: secret(env, 'API_KEY_PEPPER', isProduction),
    credit: { currency, minTopupCents: minTopup, maxTopupCents: maxTopup },
    rates: {
      participantCentsPerMinute: int(env, 'RATE_PARTICIPANT_CENTS_PER_MINUTE', 3),
      translatorCentsPerMinute: int(env, 'RATE_TRANSLATOR_CENTS_PER_MINUTE', 6),
    },
    checkout: {
      successUrl: url(env, 'CHECKOUT_SUCCESS_URL', null, ['http:', 'https:']),
      cancelUrl: url(env, 'CHECKOUT_CANCEL_URL', null, ['http:', 'https:']),
    },
    rooms: {
      departureTimeoutSeconds: int(env, 'ROOM_DEPARTURE_TIMEOUT_SECONDS', 300),
      emptyTimeoutSeconds: int(env, 'ROOM_EMPTY_TIMEOUT_SECONDS', 30 * 24 * 3600),
    },
    auth: {
      jwksUrl: url(env, 'AUTH_JWKS_URL', null, ['http:', 'https:']),
      issuer: optional(env, 'AUTH_ISSUER'),
      audience: optional(env, 'AUTH_AUDIENCE'),
    },
    http: {
      bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 16 * 1024, 1024, 1024 * 1024),
      webhookBodyLimitBytes: int(env, 'WEBHOOK_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 16 * 1024 * 1024),
      corsOrigins: origins(env, 'CORS_ORIGINS'),
      docsEnabled: bool(env, 'API_DOCS_ENABLED', true),
      // A page for people: a production deployment turns it on knowingly.
      consoleEnabled: bool(env, 'CONSOLE_ENABLED', !isProduction),
      trustProxyHops: int(env, 'TRUST_PROXY_HOPS', 0, 0, 10),
    },
    rateLimits: {
      enabled: bool(env, 'RATE_LIMITS_ENABLED', true),
      windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600),
      perCredential: int(env, 'RATE_LIMIT_PER_CREDENTIAL', 1200, 1),
      perAddress: int(env, 'RATE_LIMIT_PER_ADDRESS', 300, 1),
      failedAuthPerAddress: int(env, 'RATE_LIMIT_FAILED_AUTH_PER_ADDRESS', 30, 1),
    },
    maxConnectionMinutes: int(env, 'MAX_CONNECTION_MINUTES', 24 * 60, 1),
    roomSettleMs: int(env, 'ROOM_SETTLE_MS', nodeEnv === 'test' ? 0 : 5000, 0, 600_000),
    maxActiveApiKeysPerOrganization: int(env, 'MAX_ACTIVE_API_KEYS_PER_ORGANIZATION', 100, 1),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 400, 1, 36_500),
    events: {
      retentionDays: int(env, 'EVENT_RETENTION_DAYS', 30, 1, 36_500),
      streamsPerOrganization: int(env, 'EVENT_STREAMS_PER_ORGANIZATION', 20, 1, 10_000),
      heartbeatMs: int(env, 'EVENT_STREAM_HEARTBEAT_MS', 15_000, 100, 600_000),
    },
    webhooks: {
      allowPrivateUrls: bool(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
      retryScheduleMs: durations(env, 'WEBHOOK_RETRY_SCHEDULE_MS', RETRY_SCHEDULE_MS),
      timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      concurrency: int(env, 'WEBHOOK_DELIVERY_CONCURRENCY', 64, 1, 1024),
      endpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 64, 1, 1024),
    },
    metrics: {
      port: optionalPort(env, 'METRICS_PORT'),
      workerPort: optionalPort(env, 'WORKER_METRICS_PORT'),
      token: optional(env, 'METRICS_TOKEN'),
      portLikeApi: false,
    },
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info'),
    timeouts: {
      databaseConnectMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 3000, 100, 60_000),
      databaseStatementMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000),
      databaseLockMs: int(env, 'DATABASE_LOCK_TIMEOUT_MS', 3000, 100, 600_000),
      redisCommandMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 2000, 100, 60_000),
      livekitMs: int(env, 'LIVEKIT_TIMEOUT_MS', 5000, 100, 60_000),
      stripeMs: int(env, 'STRIPE_TIMEOUT_MS', 4000, 100, 60_000),
      httpRequestMs,
      httpHeadersMs,
      httpBodyMs: int(env, 'HTTP_BODY_TIMEOUT_MS', 10_000, 100, 600_000),
    },
  };
  if (isProduction) refuseUnsafeProduction(env, config);
  return config;
}

function origins(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (raw === null) return [];
  return raw.split(',').map((entry) => {
    const origin = entry.trim();
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of origins such as https://app.example.com, got "${origin}"`);
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(`${name} must list origins (scheme://host[:port], no path), got "${origin}"`);
    }
    return origin;
  });
}

/** Settings a production deployment must not run with: the first found stops the process, named. */
function refuseUnsafeProduction(env: Env, config: AppConfig): void {
  if (!optional(env, 'LIVEKIT_API_KEY')) throw new ConfigError('LIVEKIT_API_KEY is required in production');
  if (!optional(env, 'LIVEKIT_API_SECRET')) throw new ConfigError('LIVEKIT_API_SECRET is required in production');
  if (config.livekit.apiKey === LIVEKIT_DEV_PAIR.key) {
    throw new ConfigError(`LIVEKIT_API_KEY must not be LiveKit's public development key "${LIVEKIT_DEV_PAIR.key}" in production`);
  }
  if (config.livekit.apiSecret === LIVEKIT_DEV_PAIR.secret) {
    throw new ConfigError(`LIVEKIT_API_SECRET must not be LiveKit's public development secret in production`);
  }
  if (config.stripe.secretKey !== null && config.stripe.webhookSecret === null) {
    throw new ConfigError('STRIPE_WEBHOOK_SECRET is required in production when STRIPE_SECRET_KEY is set');
  }
  const secrets: [string, string | null][] = [
    ['LIVEKIT_API_SECRET', config.livekit.apiSecret],
    ['INVITE_SIGNING_SECRET', config.inviteSigningSecret],
    ['API_KEY_PEPPER', config.apiKeyPepper],
  ];
  for (const [name, value] of secrets) {
    if (value !== null && value.length < MIN_SECRET_LENGTH) {
      throw new ConfigError(`${name} must be at least ${MIN_SECRET_LENGTH} characters in production`);
    }
  }
}

/** Loads the config or stops the process with one line naming the bad variable. */
export function loadConfigOrExit(env: Env = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
