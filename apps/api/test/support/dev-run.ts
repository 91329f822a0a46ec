import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../../..');
export const FAKE_LIVEKIT_BIN = path.join(__dirname, 'fake-livekit-server');

export { freePort } from './free-port';

/** Every process below `pid` (through /proc), as it is now. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Alive and not a zombie (a zombie has exited; only its parent's bookkeeping is left). */
export function isRunning(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '?';
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `pids` are all gone or `withinMs` passed; returns the ones still running. */
export async function leftAfter(pids: number[], withinMs: number): Promise<string[]> {
  const until = Date.now() + withinMs;
  while (pids.some(isRunning) && Date.now() < until) await sleep(100);
  return pids.filter(isRunning).map((pid) => `${pid} ${commandOf(pid)}`);
}

export interface DevRun {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the output so far once `pattern` appears; rejects if `npm run dev` exits first. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  exited: Promise<number | null>;
}

/** `npm run dev` as a user starts it, in a process group of its own (so a test can press Ctrl-C on it). */
export function startDev(env: Record<string, string>): DevRun {
  const child = spawn('npm', ['run', 'dev'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  const waitFor = async (pattern: RegExp, timeoutMs = 240_000) => {
    const until = Date.now() + timeoutMs;
    while (!pattern.test(out)) {
      if (done) throw new Error(`npm run dev exited before ${pattern}:\n${out}`);
      if (Date.now() > until) throw new Error(`No ${pattern} within ${timeoutMs} ms:\n${out}`);
      await sleep(100);
    }
    return out;
  };
  return { child, output: () => out, waitFor, exited };
}
