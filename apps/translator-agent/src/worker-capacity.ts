import os from 'node:os';

/**
 * The worker's load as LiveKit sees it: the larger of the share of the job limit in use and the CPU
 * load per core. At 1 the worker reports itself full and LiveKit stops assigning it rooms.
 */
export function workerLoad(activeJobs: number, maxJobs: number, cpuLoad = os.loadavg()[0]! / os.cpus().length): number {
  return Math.max(activeJobs / maxJobs, Math.min(cpuLoad, 1));
}

/** Load is only refreshed every few seconds: a request past the limit in between is declined. */
export function acceptsJob(activeJobs: number, maxJobs: number): boolean {
  return activeJobs < maxJobs;
}
