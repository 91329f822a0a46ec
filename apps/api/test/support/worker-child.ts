import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { AppConfig } from '../../src/config/app-config';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * The queue workers as a process of their own (worker-process.ts), on the test app's database and
 * queue prefix: a process a crash test can SIGKILL. The child is returned at once (to be killed after
 * a failed test too), with a promise of its being ready.
 */
export function spawnWorkerChild(config: AppConfig, env: Record<string, string>): { child: ChildProcess; ready: Promise<ChildProcess> } {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/test/support/worker-process.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PORT: '0',
      DATABASE_URL: config.databaseUrl,
      QUEUE_PREFIX: config.queuePrefix,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Promise<ChildProcess>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker exited early with ${code}`)));
  });
  return { child, ready };
}
