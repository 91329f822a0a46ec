import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Reads `.env` of the working directory into process.env when it exists. A variable set in the
 * environment keeps its value (Node's loadEnvFile never overrides), so the environment wins.
 */
export function loadDotEnv(directory = process.cwd()): void {
  const file = path.join(directory, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
}
