import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { restoreCasing } from '../translation/casing';
import type { TextTranslator, TranslationRequest } from '../translation/translator';
import { protectForApertium } from './apertium-terms';

/** Characters that are markup in Apertium's stream format. */
const RESERVED = /[\\[\]^$/@<>{}]/g;

/**
 * Translation with Apertium: one long-lived pipeline per direction, in null-flush mode (each
 * segment ends with `\0` and comes back ended with `\0`), so a segment costs milliseconds
 * instead of the ~0.4 s of starting the dozen processes of a pair. Segments of one direction are
 * translated one at a time, in order.
 */
export class ApertiumTranslator implements TextTranslator {
  readonly label = 'apertium';
  private readonly pipes = new Map<string, ApertiumPipe>();

  /** @param modes mode file by direction (`en>es`), as `detectLocalEngines` found them. */
  constructor(private readonly modes: ReadonlyMap<string, string>) {}

  supports(source: string, target: string): boolean {
    return this.modes.has(`${source}>${target}`);
  }

  /** Starts the direction's pipeline and loads its data (close to a second), so the first segment does not wait. */
  prepare(source: string, target: string): void {
    if (this.supports(source, target))
      this.pipe(`${source}>${target}`)
        .translate('')
        .catch(() => undefined);
  }

  async *translate(request: TranslationRequest): AsyncIterable<string> {
    // A rule-based engine needs no earlier segments, and cannot name a language it was not told.
    if (request.task.kind !== 'fixed') return;
    const { source, target } = request.task;
    const terms = request.glossary?.find((g) => g.source === source && g.target === target)?.matches ?? [];
    const tokens = protectForApertium(request.text, terms);
    // Apertium is case-sensitive: a lowercase "i" would come back untranslated. Sentence starts are the
    // recognizer's to case: a chunk from the middle of a sentence (simultaneous mode) stays lowercase.
    const input = source === 'en' ? restoreCasing(tokens.text, false) : tokens.text;
    const output = await this.pipe(`${source}>${target}`).translate(input);
    const text = tokens.restore(output);
    if (text) yield text;
  }

  private pipe(direction: string): ApertiumPipe {
    const mode = this.modes.get(direction);
    if (!mode) throw new Error(`apertium has no ${direction} pair installed`);
    let pipe = this.pipes.get(direction);
    if (!pipe || pipe.dead) {
      pipe = new ApertiumPipe(mode);
      this.pipes.set(direction, pipe);
    }
    return pipe;
  }

  close(): void {
    for (const pipe of this.pipes.values()) pipe.close();
    this.pipes.clear();
  }
}

class ApertiumPipe {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (text: string) => void; reject: (error: Error) => void }[] = [];
  private buffer = Buffer.alloc(0);
  dead = false;

  constructor(modeFile: string) {
    // `apertium -z` adds deformatters that do not flush per segment; the pair's own chain does.
    const script = spawnSync('apertium-wblank-mode', ['-z', modeFile], { encoding: 'utf8' });
    if (script.status !== 0) throw new Error(`apertium-wblank-mode failed for ${modeFile}: ${script.stderr}`);
    // $1: generation without unknown-word marks; $2: the tagger's default.
    this.child = spawn('bash', ['-c', script.stdout.trim(), 'apertium', '-n', ''], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.resume();
    this.child.stdin.on('error', () => undefined);
    this.child.on('exit', (code) => this.fail(new Error(`apertium exited with ${code}`)));
    this.child.on('error', (error) => this.fail(error));
  }

  translate(text: string): Promise<string> {
    if (this.dead) return Promise.reject(new Error('apertium is not running'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      // Newlines would be sentence breaks to the tagger; a segment is one line.
      // The tagger needs the end of a line before a flush.
      this.child.stdin.write(`${text.replace(/\s+/g, ' ').replace(RESERVED, (c) => `\\${c}`)}\n\0`);
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    let end = this.buffer.indexOf(0);
    while (end !== -1) {
      const raw = this.buffer.subarray(0, end).toString('utf8');
      this.buffer = this.buffer.subarray(end + 1);
      this.waiting.shift()?.resolve(unescape(raw));
      end = this.buffer.indexOf(0);
    }
  }

  private fail(error: Error): void {
    this.dead = true;
    for (const w of this.waiting.splice(0)) w.reject(error);
  }

  close(): void {
    this.dead = true;
    this.child.stdin.end();
    this.child.kill();
  }
}

/** Drops superblanks (`[...]`, formatting Apertium carries through) and unescapes reserved characters. */
function unescape(text: string): string {
  return text
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\\(.)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}
