/** A command used wrongly: usage on stderr, exit code 2. */
export class UsageError extends Error {}
