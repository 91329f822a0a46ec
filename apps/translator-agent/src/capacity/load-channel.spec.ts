import { JobRequest } from '@livekit/agents';
import { Job } from '@livekit/protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { loadAgentConfig } from '../config';
import { workerOptions } from '../main';
import { LoadChannelClient, LoadChannelServer } from './load-channel';
import { StreamBudget } from './stream-budget';

const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
};

describe('the worker stream budget across job processes (load channel) and the load agents-js reports', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'load-channel-'));
  const socketPath = path.join(dir, 'load.sock');
  const K = 3;
  let budget: StreamBudget;
  let server: LoadChannelServer;
  const clients: LoadChannelClient[] = [];

  beforeEach(async () => {
    budget = new StreamBudget(K);
    server = new LoadChannelServer(budget, socketPath);
    await server.listen();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    await server.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const config = () => {
    const loaded = loadAgentConfig({ OPENAI_API_KEY: 'sk-test', TRANSLATOR_MAX_JOBS: '10' });
    if (!loaded.ok) throw new Error(loaded.problem);
    return loaded.config;
  };
  const job = () => ({ job: { id: `AJ_${Math.random()}` } });

  it(`with capacity ${K}, the ${K + 1}th stream (in another room's process) gets captions only and the load reaches the threshold`, async () => {
    const roomA = await LoadChannelClient.connect(socketPath);
    const roomB = await LoadChannelClient.connect(socketPath);
    clients.push(roomA, roomB);
    const options = workerOptions(config(), budget, undefined, () => 0.1); // an idle CPU: the streams make it full
    const worker = { activeJobs: [job(), job()] };
    expect(await options.loadFunc(worker as never)).toBeLessThan(options.loadThreshold);

    const services = [
      await roomA.admit('s/TR_1'),
      await roomA.admit('s/TR_2'),
      await roomB.admit('s/TR_1'), // the same track sid in another room is another stream
    ];
    expect(services).toEqual(['full', 'full', 'full']);
    // Full: LiveKit is told (load ≥ threshold → WS_FULL) and a room offered meanwhile is declined.
    expect(await options.loadFunc(worker as never)).toBeGreaterThanOrEqual(options.loadThreshold);
    const answer = { value: 'none' };
    await options.requestFunc(
      new JobRequest(
        new Job({ id: 'AJ_new' }),
        async () => void (answer.value = 'declined'),
        async () => void (answer.value = 'accepted'),
      ),
    );
    expect(answer.value).toBe('declined');

    // A room already served grows: its new speaker is admitted to captions only.
    expect(await roomB.admit('s/TR_2')).toBe('captions');
    expect(budget.streams).toEqual({ full: K, captions: 1 });

    // Room A's process ends (its connection closes): its places go, the waiting speaker is promoted.
    const promoted: string[] = [];
    roomB.onPromote((id) => promoted.push(id));
    await roomA.close();
    await until(() => promoted.length === 1);
    expect(promoted).toEqual(['s/TR_2']);
    expect(budget.streams).toEqual({ full: 2, captions: 0 });
    expect(await options.loadFunc(worker as never)).toBeLessThan(options.loadThreshold);
    roomB.release('s/TR_1');
    roomB.release('s/TR_2');
    await until(() => budget.load === 0);
  });

  it('a draining worker tells every room, one that connects afterwards too, and a room listening late hears it', async () => {
    const before = await LoadChannelClient.connect(socketPath);
    clients.push(before);
    const told: string[] = [];
    const stop = before.onDrain(() => told.push('before'));
    before.onDrain(() => told.push('before, second listener'));
    stop();
    await before.admit('s/TR_1'); // the connection is accepted at the worker before it drains

    server.drain();
    await until(() => told.length === 1);
    const after = await LoadChannelClient.connect(socketPath);
    clients.push(after);
    await after.admit('s/TR_1');
    after.onDrain(() => told.push('after'));
    await until(() => told.length === 2);
    expect(told).toEqual(['before, second listener', 'after']);
  });

  it("sums the job processes' metrics, keeping the counters of ended ones and dropping their gauges", async () => {
    const registries = [new Registry(), new Registry()].map((registry) => {
      const counter = new Counter({ name: 'translator_test_total', help: 'h', registers: [registry] });
      const gauge = new Gauge({ name: 'translator_test_gauge', help: 'h', registers: [registry] });
      counter.inc(2);
      gauge.set(1);
      return registry;
    });
    const rooms = await Promise.all([LoadChannelClient.connect(socketPath), LoadChannelClient.connect(socketPath)]);
    clients.push(rooms[1]!);
    await rooms[0]!.sendMetrics(registries[0]!);
    await rooms[1]!.sendMetrics(registries[1]!);
    const text = async () => AggregatorRegistry.aggregate(server.jobMetrics() as never).metrics();
    await until(() => server.jobMetrics().length === 2);
    expect(await text()).toMatch(/^translator_test_total 4$/m);
    expect(await text()).toMatch(/^translator_test_gauge 2$/m);

    await rooms[0]!.close();
    await until(() => server.jobMetrics().length === 2 && !server.jobMetrics()[0]!.some((m) => m.name === 'translator_test_gauge'));
    expect(await text()).toMatch(/^translator_test_total 4$/m);
    expect(await text()).toMatch(/^translator_test_gauge 1$/m);
  });
});
