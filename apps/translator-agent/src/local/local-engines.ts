/**
 * The local speech pipeline's engines, from Debian's packages: PocketSphinx (English recognition,
 * through its Python binding), Apertium (rule-based translation) and eSpeak NG (synthesis). What
 * it can serve is what is installed: English speech in, the installed Apertium pairs' targets out.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const LOCAL_PACKAGES = [
  'pocketsphinx',
  'pocketsphinx-en-us',
  'python3-pocketsphinx',
  'apertium',
  'apertium-eng-spa',
  'espeak-ng',
] as const;

export interface LocalEngines {
  python: string;
  recognizerScript: string;
  sphinxModel: { hmm: string; lm: string; dict: string };
  /** Apertium mode files by direction label (`en>es` → `/usr/share/apertium/modes/eng-spa.mode`). */
  modes: ReadonlyMap<string, string>;
  espeak: string;
  /** The recognizer's one language. */
  source: 'en';
  /** Languages speech can be translated into, sorted. */
  targets: readonly string[];
}

export type LocalEnginesResult = { ok: true; engines: LocalEngines } | { ok: false; problem: string };

const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const APERTIUM_MODES = '/usr/share/apertium/modes';

/** Apertium names languages with ISO 639-3 codes (older pairs with 639-1); the rooms use 639-1. */
const ISO_639_3: Record<string, string> = {
  eng: 'en',
  spa: 'es',
  cat: 'ca',
  glg: 'gl',
  por: 'pt',
  fra: 'fr',
  ita: 'it',
  deu: 'de',
  nld: 'nl',
  ron: 'ro',
  eus: 'eu',
  epo: 'eo',
  oci: 'oc',
  arg: 'an',
  ast: 'ast',
  isl: 'is',
  mkd: 'mk',
  hbs: 'sh',
  swe: 'sv',
  dan: 'da',
  nob: 'nb',
};

function iso1(code: string): string {
  return ISO_639_3[code] ?? code;
}

/** `eng-spa.mode` → `en>es`; variants (`eng-cat_valencia`) and pairs the files name otherwise are left out. */
export function directionOfMode(file: string): string | null {
  const match = /^([a-z]{2,3})-([a-z]{2,3})\.mode$/.exec(file);
  return match ? `${iso1(match[1]!)}>${iso1(match[2]!)}` : null;
}

/** The script next to the sources, from `src/local` or from the compiled `dist/.../src/local`. */
function findScript(name: string): string | null {
  let dir = __dirname;
  for (let i = 0; i < 8; i += 1) {
    const candidate = path.join(dir, 'apps', 'translator-agent', 'engines', name);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return null;
}

function runs(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.status === 0;
}

export function detectLocalEngines(readModes: () => string[] = () => listModes()): LocalEnginesResult {
  const missing: string[] = [];
  const python = '/usr/bin/python3';
  const recognizerScript = findScript('pocketsphinx-stream.py');
  if (!recognizerScript)
    return { ok: false, problem: 'apps/translator-agent/engines/pocketsphinx-stream.py is missing from this checkout.' };
  const sphinxModel = {
    hmm: path.join(MODEL_DIR, 'en-us'),
    lm: path.join(MODEL_DIR, 'en-us.lm.bin'),
    dict: path.join(MODEL_DIR, 'cmudict-en-us.dict'),
  };
  if (!existsSync(sphinxModel.hmm) || !existsSync(sphinxModel.lm)) missing.push('pocketsphinx-en-us');
  if (!existsSync(python) || !runs(python, ['-c', 'import pocketsphinx'])) missing.push('pocketsphinx', 'python3-pocketsphinx');
  const modes = new Map<string, string>();
  for (const file of readModes()) {
    const direction = directionOfMode(file);
    if (direction?.startsWith('en>')) modes.set(direction, path.join(APERTIUM_MODES, file));
  }
  if (!runs('apertium-wblank-mode', ['-h'])) missing.push('apertium');
  if (modes.size === 0) missing.push('apertium-eng-spa');
  const espeak = 'espeak-ng';
  if (!runs(espeak, ['--version'])) missing.push('espeak-ng');
  if (missing.length > 0) {
    return {
      ok: false,
      problem: `the local speech pipeline needs Debian packages: apt-get install ${[...new Set(missing)].join(' ')}`,
    };
  }
  const targets = [...modes.keys()].map((d) => d.split('>')[1]!).sort();
  return { ok: true, engines: { python, recognizerScript, sphinxModel, modes, espeak, source: 'en', targets } };
}

function listModes(): string[] {
  return existsSync(APERTIUM_MODES) ? readdirSync(APERTIUM_MODES) : [];
}
