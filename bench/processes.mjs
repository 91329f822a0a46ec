// The bench's processes: commands run to completion, the servers it starts and stops, free ports,
// their CPU time, and the build of another git ref for BENCH_COMPARE.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './settings.mjs';

export const log = (message) => process.stderr.write(`bench: ${message}\n`);

/** Runs a command to completion; rejects with its output when it fails. */
export function run(command, args, env = process.env, cwd = ROOT) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else {
        const output = `${stdout}${stderr}`.trimEnd();
        const tail = output.length > 4000 ? `…${output.slice(-4000)}` : output;
        reject(new Error(`${[command, ...args].join(' ')} exited with ${code}\n${tail}`));
      }
    });
  });
}

export const children = new Set();

/** Starts a long-running child, keeping the tail of its output for error messages. */
export function startChild(name, args, env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  child.output = () => output;
  child.label = name;
  children.add(child);
  child.exited.then(() => children.delete(child));
  return child;
}

export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await child.exited;
  clearTimeout(timer);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitUntilLive(child, url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child.label} exited before answering ${url}:\n${child.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.label} did not answer ${url} within ${timeoutMs / 1000}s:\n${child.output()}`);
}

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** CPU seconds (user + system) a process has used so far, from /proc; null where there is none. */
export function cpuSecondsOf(pid) {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime (fields 14 and 15)
  } catch {
    return null;
  }
}

/**
 * The production build of another git ref, in a worktree under .data/bench-compare/ (kept and reused):
 * checked out, installed with its own lock file and built on first use.
 */
export async function prepareComparedBuild(ref) {
  const sha = (await run('git', ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
  const dir = path.join(ROOT, '.data/bench-compare', sha.slice(0, 12));
  const dist = path.join(dir, 'dist/apps/api/apps/api/src');
  if (!existsSync(path.join(dist, 'main.js'))) {
    if (!existsSync(path.join(dir, 'package.json'))) {
      log(`BENCH_COMPARE: git worktree add ${path.relative(ROOT, dir)} ${sha.slice(0, 12)}`);
      await run('git', ['worktree', 'add', '--force', '--detach', dir, sha]);
    }
    log(`BENCH_COMPARE: npm ci && npm run build in ${path.relative(ROOT, dir)}`);
    await run('npm', ['ci', '--no-audit', '--no-fund'], process.env, dir);
    await run('npm', ['run', 'build'], process.env, dir);
  }
  return { ref, sha, dist };
}
