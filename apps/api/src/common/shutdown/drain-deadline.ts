/**
 * On SIGTERM or SIGINT Nest closes the application (HTTP server, queue workers, pools). A close that
 * waits on a Redis or PostgreSQL that is gone never ends: past the drain time the process exits anyway.
 */
export function exitAfterDrainTime(drainMs: number, name: string): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      setTimeout(() => {
        process.stderr.write(`${name} did not finish draining within ${drainMs} ms of ${signal}: exiting now.\n`);
        process.exit(1);
      }, drainMs).unref();
    });
  }
}
