// A PostgreSQL, a Redis and an API process of a test's own, which the test may stop, kill or freeze:
// never the shared services of the other tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

const ROOT = path.resolve(__dirname, '../../../..');

function tcpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: still not there after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface OwnPostgres {
  /** `postgres://…/<database>` on this server. */
  url(database: string): string;
  /** Fast shutdown (SIGINT): clients are disconnected, new connections refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP to the server and every backend: connections stay open and nothing answers. */
  freeze(): void;
  thaw(): void;
  destroy(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const port = await freePort();
  // Directly under the temp directory: when the tests run as root the server runs as `postgres`,
  // which must be able to reach it.
  const databaseDir = path.join(os.tmpdir(), `trk-own-postgres-${randomBytes(4).toString('hex')}`);
  const driver = spawn(process.execPath, [path.join(__dirname, 'own-postgres.mjs'), databaseDir, String(port)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  driver.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const said: string[] = [];
  const waiters: (() => void)[] = [];
  driver.stdout?.on('data', (chunk: Buffer) => {
    said.push(...chunk.toString().split('\n').filter(Boolean));
    for (const wake of waiters.splice(0)) wake();
  });
  const expectLine = async (line: string, timeoutMs = 60_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!said.includes(line)) {
      if (driver.exitCode !== null) throw new Error(`the embedded PostgreSQL exited:\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL never said "${line}":\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    said.splice(said.indexOf(line), 1);
  };
  const command = async (line: 'stop' | 'start', answer: string): Promise<void> => {
    driver.stdin?.write(`${line}\n`);
    await expectLine(answer);
  };
  await expectLine('ready', 120_000);
  let frozen: number[] = [];
  const processes = (): number[] => {
    const postmaster = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync(`/proc/${postmaster}/task`).flatMap((task) =>
      readFileSync(`/proc/${postmaster}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
    return [postmaster, ...children];
  };
  // A backend may end between listing and signalling it.
  const signal = (pid: number, name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  const thaw = (): void => {
    for (const pid of frozen) signal(pid, 'SIGCONT');
    frozen = [];
  };
  return {
    url: (database) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: () => command('stop', 'stopped'),
    start: () => command('start', 'started'),
    freeze() {
      frozen = processes();
      for (const pid of frozen) signal(pid, 'SIGSTOP');
    },
    thaw,
    async destroy() {
      thaw();
      driver.stdin?.end();
      await exited(driver);
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}

export interface OwnRedis {
  readonly url: string;
  /** SIGKILL: gone at once, with everything it held (it keeps nothing on disk). */
  kill(): Promise<void>;
  /** Starts it again, empty, on the same port. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, until `thaw`. */
  freeze(): void;
  thaw(): void;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const redis: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      await waitFor(`redis-server on ${port}`, () => tcpAnswers(port));
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async kill() {
      if (!child) return;
      const running = child;
      child = null;
      running.kill('SIGKILL');
      await exited(running);
    },
  };
  await redis.start();
  return redis;
}

/** Applies the migrations to `databaseUrl` (creating the database) as `npm run migrate` does. */
export function migrate(databaseUrl: string): void {
  const result = spawnSync(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/database/migrate.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'test' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`migration failed:\n${result.stdout}\n${result.stderr}`);
}

/** Runs an operator CLI command against `databaseUrl`; returns its JSON answer. */
export function cli(databaseUrl: string, ...args: string[]): Record<string, unknown> {
  const result = spawnSync(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'test' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`cli ${args[0]} failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

export interface ApiProcess {
  readonly url: string;
  /** The JSON lines it wrote. */
  readonly logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** `apps/api/src/main.ts` as its own process (what `npm run start:api` runs, from the sources). */
export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('{')) logs.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    'the API process',
    async () => {
      if (child.exitCode !== null) throw new Error(`the API process exited with ${child.exitCode}:\n${stderr}`);
      return fetch(`${url}/health/live`).then(
        (res) => res.ok,
        () => false,
      );
    },
    90_000,
  );
  return {
    url,
    logs,
    async stop() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

export interface WorkerProcess {
  readonly pid: number;
  /** Neither exited nor killed by a signal. */
  alive(): boolean;
  /** What it wrote (stdout and stderr), and how it ended if it did. */
  output(): string;
  stop(): Promise<void>;
}

/** `apps/api/src/worker.ts`, the queue workers' own process (what `npm run start:worker` runs, from the sources). */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer): void => {
    out = (out + chunk.toString()).slice(-50_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('exit', (code, signal) => (out += `\n[exited: code ${code}, signal ${signal}]\n`));
  await waitFor(
    'the worker process',
    async () => {
      if (child.exitCode !== null) throw new Error(`the worker process exited with ${child.exitCode}:\n${out}`);
      return out.includes('Queue workers running');
    },
    90_000,
  );
  return {
    pid: child.pid!,
    alive: () => child.exitCode === null && child.signalCode === null,
    output: () => out,
    async stop() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}
