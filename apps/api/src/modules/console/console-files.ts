import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Beside this file in the source tree; a build copies it to the same place under dist/ (nest-cli.json's assets). */
const PUBLIC = path.join(__dirname, 'public');

export interface ConsoleFiles {
  page: string;
  script: string;
  styles: string;
}

/** The console page's three files, read once at start: small, and what is served then matches the code that runs. */
export function readConsoleFiles(): ConsoleFiles {
  const read = (name: string) => readFileSync(path.join(PUBLIC, name), 'utf8');
  return { page: read('index.html'), script: read('console.js'), styles: read('console.css') };
}
