// The processes of `npm run dev`: started in order, each in its own process group (so Ctrl-C reaches
// only dev.mjs, which then stops them in reverse order: the API before the Redis it drains into),
// and stopped all together within a deadline, whatever signal or exit of the parent triggers it.
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * @param {{ say: (line: string) => void, deadlineMs?: number, exit?: (code: number) => void }} options
 */
export function createSupervisor({ say, deadlineMs = 9_000, exit = (code) => process.exit(code) }) {
  /** @type {{ name: string, child: import('node:child_process').ChildProcess, exited: Promise<unknown>, optional: boolean }[]} */
  const entries = [];
  let stopping = null;

  function forward(stream, target, onLine) {
    readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      target.write(`${line}\n`);
      onLine?.(line);
    });
  }

  /**
   * Starts a long-running process. `readyLine` (a RegExp on its stdout) sets `ready`;
   * an `optional` process that exits is reported, any other one stops everything.
   */
  function start(name, command, args, { env = process.env, cwd, optional = false, readyLine } = {}) {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.once('error', (error) => say(`${name} could not start: ${error.message}`));
    const entry = { name, child, exited, optional, ready: false };
    forward(child.stdout, process.stdout, (line) => {
      if (readyLine?.test(line)) entry.ready = true;
    });
    forward(child.stderr, process.stderr);
    entries.push(entry);
    void exited.then(({ code, signal }) => {
      if (stopping) return;
      say(`${name} exited (${signal ?? `code ${code}`}).`);
      if (!optional) void stopAll(1);
    });
    return entry;
  }

  /** Runs a command to its end (build, migrate) as a stoppable child; resolves with its exit code. */
  async function run(name, command, args, { env = process.env, cwd } = {}) {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (error) => resolve({ code: 127, signal: null, error }));
    });
    const entry = { name, child, exited, optional: true };
    entries.push(entry);
    const { code, error } = await exited;
    entries.splice(entries.indexOf(entry), 1);
    if (error) say(`${name} could not start: ${error.message}`);
    return code ?? 1;
  }

  /** Resolves when `check()` is true; rejects when the process exits first or after `timeoutMs`. */
  async function waitUntil(entry, check, timeoutMs = 60_000) {
    let gone = false;
    void entry.exited.then(() => (gone = true));
    const until = Date.now() + timeoutMs;
    while (!(await check())) {
      if (gone) throw new Error(`${entry.name} exited while starting.`);
      if (Date.now() > until) throw new Error(`${entry.name} did not become ready within ${timeoutMs / 1000} s.`);
      await sleep(150);
    }
  }

  /** Stops every process, last started first: SIGTERM, then SIGKILL of its group past the deadline. */
  function stopAll(exitCode = 0) {
    stopping ??= (async () => {
      if (entries.length > 0) say('Stopping…');
      const deadline = Date.now() + deadlineMs;
      for (const { child, exited } of [...entries].reverse()) {
        if (child.exitCode === null && child.signalCode === null && child.pid) {
          child.kill('SIGTERM');
          await Promise.race([exited, sleep(Math.max(0, deadline - Date.now()))]);
        }
        if (child.pid) signalGroup(child.pid, 'SIGKILL'); // anything it left behind, or itself past the deadline
      }
      exit(exitCode);
    })();
    return stopping;
  }

  /** Ctrl-C, SIGINT, SIGTERM and SIGHUP stop everything (npm passes SIGINT and SIGTERM on); so does the death of the parent. */
  function stopOnSignals() {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll(0));
    const parent = process.ppid;
    setInterval(() => process.ppid !== parent && void stopAll(0), 300).unref();
  }

  return {
    start,
    run,
    waitUntil,
    stopAll,
    stopOnSignals,
    get stopping() {
      return stopping !== null;
    },
  };
}
