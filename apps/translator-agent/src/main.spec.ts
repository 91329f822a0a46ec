import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

/** The agent app's entry point, as `npm run dev` probes it. */
async function check(env: NodeJS.ProcessEnv) {
  return run(process.execPath, ['-r', '@swc-node/register', 'apps/translator-agent/src/main.ts', '--check'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('translator agent entry point (main.ts --check)', () => {
  it('starts with the local pipeline when no hosted provider is configured, naming what it serves', async () => {
    const result = await check({});
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trim()).toMatch(/^translator agent configured \(stt=local translation=local tts=local; local: en → .*\bes\b/);
  }, 30_000);

  it('refuses in one line when a chosen hosted provider has no key', async () => {
    const result = await check({ TRANSLATOR_STT: 'deepgram', OPENAI_API_KEY: 'sk' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('TRANSLATOR_STT=deepgram needs DEEPGRAM_API_KEY.');
  }, 30_000);
});
