import type { PipelineObserver } from '../metrics/agent-metrics';
import type { SegmentFates } from './segment-fates';
import { translationTaskKey, type TranslationTask } from './translation-task';

/** What is translated and spoken in one go: a whole utterance (sentence mode) or one of its chunks. */
export interface Utterance {
  segmentId: string;
  task: TranslationTask;
  text: string;
  source: string | null;
  target: string | null;
  endOfSpeechAt: number;
  /** When each word it carries started being spoken (epoch ms), for word lag. */
  wordStarts: number[];
  /** The utterance's last piece: once it is done, the segment's fate (its joined translation) is known. */
  last: boolean;
}

/** Utterances waiting behind the one being translated; past this, new ones are merged into the last. */
export const MAX_WAITING_UTTERANCES = 2;

export interface UtteranceQueueOptions {
  speakerIdentity: string;
  fates: SegmentFates;
  /** Translates and speaks one utterance; resolves once it may be followed by the next. */
  translate(u: Utterance): Promise<void>;
  observer?: PipelineObserver;
  onError?: (error: unknown) => void;
}

/**
 * One speaker's utterances, translated one at a time in the order they were said. A backlog is
 * capped: past `MAX_WAITING_UTTERANCES`, a new utterance joins the last waiting one of its direction,
 * else the oldest waiting one is dropped.
 */
export class UtteranceQueue {
  private readonly waiting: Utterance[] = [];
  private working: Promise<void> | null = null;

  constructor(private readonly options: UtteranceQueueOptions) {}

  /** Past the cap, a new utterance joins the last waiting one of its direction (one translation catches up). */
  enqueue(u: Utterance): void {
    const { fates, observer, onError } = this.options;
    const last = this.waiting[this.waiting.length - 1];
    if (this.waiting.length >= MAX_WAITING_UTTERANCES && last) {
      if (translationTaskKey(last.task) === translationTaskKey(u.task)) {
        // The combined translation belongs to the later segment; the earlier one has only what was translated of it before.
        if (last.segmentId !== u.segmentId) fates.finish(last.segmentId);
        last.text = [last.text, u.text].filter(Boolean).join(' ');
        last.segmentId = u.segmentId;
        last.endOfSpeechAt = u.endOfSpeechAt;
        last.wordStarts = [...last.wordStarts, ...u.wordStarts];
        last.last = u.last;
        observer?.utterance('merged', 'backlog');
        return;
      }
      const dropped = this.waiting.shift();
      if (dropped?.last) fates.finish(dropped.segmentId);
      observer?.utterance('dropped', 'backlog');
      onError?.(new Error(`translation of ${this.options.speakerIdentity} behind: oldest waiting utterance dropped`));
    }
    this.waiting.push(u);
    this.working ??= this.work();
  }

  /**
   * Marks the last waiting piece of a segment as its last; false when none of it is waiting (an
   * utterance that ended with nothing more recognized closes with what was chunked of it).
   */
  closeSegment(segmentId: string): boolean {
    const waiting = this.waiting.filter((u) => u.segmentId === segmentId);
    if (waiting.length === 0) return false;
    waiting[waiting.length - 1]!.last = true;
    return true;
  }

  /** Whether a piece of this segment waits for translation. */
  holds(segmentId: string): boolean {
    return this.waiting.some((u) => u.segmentId === segmentId);
  }

  /** Resolves once every utterance queued so far (and any queued meanwhile) is done. */
  async idle(): Promise<void> {
    while (this.working) await this.working;
  }

  private async work(): Promise<void> {
    for (let u = this.waiting.shift(); u; u = this.waiting.shift()) {
      // Awaited even for a piece with nothing to say (it only closes its segment): `working` must be set
      // by `enqueue` before this loop can end and clear it.
      await (u.text ? this.options.translate(u).catch((error: unknown) => this.options.onError?.(error)) : Promise.resolve());
      // Untagged model output, nothing said, a failure: what was translated of it, else no translation.
      if (u.last) this.options.fates.finish(u.segmentId);
    }
    this.working = null;
  }
}
