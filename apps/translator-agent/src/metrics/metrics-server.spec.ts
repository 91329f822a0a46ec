import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoadChannelClient, LoadChannelServer } from '../capacity/load-channel';
import { StreamBudget } from '../capacity/stream-budget';
import { AgentMetrics, WorkerMetrics } from './agent-metrics';
import { serveMetrics, workerExposition } from './metrics-server';

describe('the worker metrics endpoint (AGENT_METRICS_PORT)', () => {
  it("serves the worker's series and its rooms' summed, at GET /metrics", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-metrics-'));
    const budget = new StreamBudget(2);
    const channel = new LoadChannelServer(budget, path.join(dir, 'load.sock'));
    await channel.listen();
    const worker = new WorkerMetrics(() => budget.streams, 2);
    worker.load.set(0.5);
    const rooms = await Promise.all([0, 1].map(() => LoadChannelClient.connect(path.join(dir, 'load.sock'))));
    for (const room of rooms) {
      const metrics = new AgentMetrics();
      metrics.firstAudio('en', 'es', 800);
      metrics.stage('recognition', 600);
      await room.admit('s/TR_1');
      await room.sendMetrics(metrics.registry);
    }
    const deadline = Date.now() + 5000;
    while (channel.jobMetrics().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const server = await serveMetrics(0, () => workerExposition(worker.registry, channel.jobMetrics()));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const body = await response.text();
      expect(body).toMatch(/^translator_first_audio_seconds_count\{from="en",to="es"\} 2$/m);
      expect(body).toMatch(/^translator_stage_duration_seconds_count\{stage="recognition"\} 2$/m);
      expect(body).toMatch(/^translator_active_streams\{service="full"\} 2$/m);
      expect(body).toMatch(/^translator_stream_capacity 2$/m);
      expect(body).toMatch(/^translator_load 0.5$/m);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      server.close();
      await Promise.all(rooms.map((room) => room.close()));
      await channel.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
