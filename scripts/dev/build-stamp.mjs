// `npm run dev` builds only when a source changed since its last build (a second start takes seconds).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const INPUTS = ['apps', 'libs', 'package-lock.json', 'tsconfig.json', 'nest-cli.json'];

function newestMtime(file) {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted or renamed file changes its directory's mtime
  for (const name of readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, name)));
  return newest;
}

const stampFile = (root) => path.join(root, 'dist', '.dev-build-stamp');

export function sourcesMtime(root) {
  return Math.max(...INPUTS.map((input) => newestMtime(path.join(root, input))));
}

export function buildIsCurrent(root) {
  const file = stampFile(root);
  return existsSync(file) && Number(readFileSync(file, 'utf8')) >= sourcesMtime(root);
}

/** Call with the sources' mtime read before the build started, so an edit made during it is built next time. */
export function markBuilt(root, mtime) {
  writeFileSync(stampFile(root), String(mtime));
}
