import { QUEUES } from '@app/contracts';
import { QueueRegistry } from '../../src/queue/queue.registry';
import type { TestApp } from './test-app';

/** Resolves once the app's translator-events queue has nothing waiting, delayed or running. */
export async function translatorEventsDrained(t: TestApp, timeoutMs = 15_000): Promise<void> {
  const queue = t.app.get(QueueRegistry).queue(QUEUES.translatorEvents);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (Object.values(counts).every((n) => n === 0)) return;
    if (Date.now() > deadline) throw new Error(`translator-events not drained: ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
