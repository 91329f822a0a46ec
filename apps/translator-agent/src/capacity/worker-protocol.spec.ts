import { AgentServer, initializeLogger } from '@livekit/agents';
import { WorkerStatus } from '@livekit/protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AgentProtocolDouble } from '../../test/support/agent-protocol-double';
import { loadAgentConfig } from '../config';
import { workerOptions } from '../main';
import { LoadChannelClient, LoadChannelServer } from './load-channel';
import { StreamBudget } from './stream-budget';

initializeLogger({ pretty: false, level: 'error' });

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const until = async (condition: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(condition()).toBe(true);
};

describe("the worker's load as LiveKit receives it (agents-js AgentServer against a protocol double)", () => {
  it('with capacity K, the (K+1)th speaker stream gets captions only and the worker reports itself full (load ≥ threshold, WS_FULL)', async () => {
    const livekit = new AgentProtocolDouble();
    const url = await livekit.listen();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'worker-protocol-'));
    const socketPath = path.join(dir, 'load.sock');
    const K = 2;
    const budget = new StreamBudget(K);
    const channel = new LoadChannelServer(budget, socketPath);
    await channel.listen();
    const healthPort = await freePort();
    const loaded = loadAgentConfig({
      OPENAI_API_KEY: 'sk-test',
      LIVEKIT_URL: url,
      TRANSLATOR_MAX_JOBS: '10',
      AGENT_HEALTH_PORT: String(healthPort),
    });
    if (!loaded.ok) throw new Error(loaded.problem);
    // An idle CPU: only the streams can make this worker full.
    const options = workerOptions(loaded.config, budget, undefined, () => 0.1);
    options.numIdleProcesses = 0;
    const worker = new AgentServer(options);
    const running = worker.run().catch(() => undefined);
    const room = await LoadChannelClient.connect(socketPath);
    try {
      await until(() => livekit.updates().length > 0);
      expect(livekit.updates()[0]).toEqual({ load: expect.closeTo(0.1, 5), status: WorkerStatus.WS_AVAILABLE }); // a float32 on the wire;
      // agents-js's health server listens on AGENT_HEALTH_PORT
      expect((await fetch(`http://127.0.0.1:${healthPort}/worker`)).status).toBe(200);

      const services = [];
      for (let i = 1; i <= K + 1; i += 1) services.push(await room.admit(`session/TR_${i}`));
      expect(services).toEqual(['full', 'full', 'captions']);

      const seen = livekit.updates().length;
      await until(() => livekit.updates().length > seen);
      const update = livekit.updates().at(-1)!;
      expect(update.load).toBeGreaterThanOrEqual(options.loadThreshold);
      expect(update.status).toBe(WorkerStatus.WS_FULL);

      // The room's process ends: its streams are freed and the worker takes rooms again.
      await room.close();
      const after = livekit.updates().length;
      await until(() => livekit.updates().length > after);
      expect(livekit.updates().at(-1)).toEqual({ load: expect.closeTo(0.1, 5), status: WorkerStatus.WS_AVAILABLE }); // a float32 on the wire;
    } finally {
      await room.close().catch(() => undefined);
      await worker.close();
      await running;
      await channel.close();
      await livekit.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
