import type { JobRequest } from '@livekit/agents';
import os from 'node:os';

/** The threshold main.ts gives agents-js: at this load the worker reports itself full (WS_FULL). */
export const LOAD_THRESHOLD = 1;

/**
 * The worker's load as LiveKit sees it: the largest of the share of the job limit in use, the speaker
 * streams' cost ÷ the worker's stream capacity, and the CPU load per core. At 1 the worker reports
 * itself full and LiveKit stops assigning it rooms.
 */
export function workerLoad(activeJobs: number, maxJobs: number, cpuLoad = os.loadavg()[0]! / os.cpus().length, streamLoad = 0): number {
  return Math.max(activeJobs / maxJobs, streamLoad, Math.min(cpuLoad, 1));
}

/** Load is only refreshed every few seconds: a request past the limit in between is declined. */
export function acceptsJob(activeJobs: number, maxJobs: number, streamLoad = 0): boolean {
  return activeJobs < maxJobs && streamLoad < LOAD_THRESHOLD;
}

/** What the capacity needs of agents-js's worker (`AgentServer`): the jobs its processes run. */
export interface RunningJobs {
  readonly activeJobs: readonly { job: { id: string } }[];
}

/** agents-js drops an accepted job whose assignment has not come after 7.5 s; past this it holds no slot. */
const ASSIGNMENT_WINDOW_MS = 10_000;

/**
 * The worker's `loadFunc` and `requestFunc` for a per-process job limit. An accepted job only shows in
 * `activeJobs` once LiveKit assigned it and its process started, so until then it holds a slot here:
 * a burst of requests cannot all be accepted before the first runs.
 */
export function jobCapacity(
  maxJobs: number,
  now: () => number = Date.now,
  /** Active speaker streams' cost ÷ stream capacity, across the job processes (StreamBudget.load). */
  streamLoad: () => number = () => 0,
  onLoad: (load: number, activeJobs: number) => void = () => undefined,
  /** CPU load per core (the 1-minute load average by default). */
  cpuLoad: () => number = () => os.loadavg()[0]! / os.cpus().length,
) {
  let worker: RunningJobs | null = null;
  const accepted = new Map<string, number>();
  const inUse = () => {
    const running = new Set((worker?.activeJobs ?? []).map((info) => info.job.id));
    for (const [id, at] of accepted) if (running.has(id) || now() - at > ASSIGNMENT_WINDOW_MS) accepted.delete(id);
    return running.size + accepted.size;
  };
  return {
    loadFunc: async (server: RunningJobs) => {
      worker = server;
      const load = workerLoad(inUse(), maxJobs, cpuLoad(), streamLoad());
      onLoad(load, server.activeJobs.length);
      return load;
    },
    requestFunc: async (request: JobRequest) => {
      if (!acceptsJob(inUse(), maxJobs, streamLoad())) return request.reject();
      accepted.set(request.id, now());
      return request.accept();
    },
  };
}
