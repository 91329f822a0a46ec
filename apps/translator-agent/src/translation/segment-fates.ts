import type { FinalSegment } from './speaker-stream';

/**
 * Each final segment of one speaker and its fate: the translation the room's other language heard
 * (joined from the pieces it was translated in), or none. A segment is reported once its fate is
 * known and every segment said before it was reported; later decisions about it change nothing.
 */
export class SegmentFates {
  /** Final segments in spoken order, reported once their fate is known and every earlier one's was. */
  private readonly reports: { segment: FinalSegment; decided: boolean }[] = [];
  private reporting: Promise<void> = Promise.resolve();
  /** The translated pieces of segments not yet complete (simultaneous mode), joined once the last is done. */
  private readonly translated = new Map<string, { target: string; source: string | null; texts: string[] }>();

  constructor(
    private readonly report: (segment: FinalSegment) => Promise<void> | undefined,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A final segment was heard; its fate is not known yet. */
  heard(segment: FinalSegment): void {
    this.reports.push({ segment, decided: false });
  }

  /** Whether pieces of this segment went to translation already (chunks of it, before it ended). */
  inTranslation(segmentId: string): boolean {
    return this.translated.has(segmentId);
  }

  /** Pieces of this segment go to translation from `source` into `target`. */
  translating(segmentId: string, target: string, source: string | null): void {
    this.translated.set(segmentId, this.translated.get(segmentId) ?? { target, source, texts: [] });
  }

  /** One more piece translated: the segment's translation so far (the caption grows chunk by chunk). */
  translatedPiece(segmentId: string, target: string, source: string | null, text: string): string {
    const pieces = this.translated.get(segmentId) ?? { target, source, texts: [] };
    pieces.texts.push(text);
    this.translated.set(segmentId, pieces);
    return pieces.texts.join(' ');
  }

  /** A segment's pieces are all done: its joined translation (or none) is its fate. */
  finish(segmentId: string): void {
    const done = this.translated.get(segmentId);
    this.translated.delete(segmentId);
    const text = done?.texts.join(' ').trim();
    this.decide(segmentId, done && text ? { language: done.target, text } : null, done?.source);
  }

  /**
   * A final segment's fate is known: its translation, or none. It is reported once every segment the
   * speaker said before it is; later decisions about it (an error after its translation) change nothing.
   */
  decide(segmentId: string, translation: FinalSegment['translation'], language?: string | null): void {
    const entry = this.reports.find((r) => r.segment.segmentId === segmentId && !r.decided);
    if (!entry) return;
    entry.decided = true;
    entry.segment.translation = translation;
    if (language) entry.segment.language = language;
    while (this.reports[0]?.decided) {
      const { segment } = this.reports.shift()!;
      this.reporting = this.reporting.then(() => this.report(segment)).catch((error: unknown) => this.onError(error));
    }
  }

  /** Resolves once every segment decided so far (and any decided meanwhile) is reported. */
  async settled(): Promise<void> {
    for (let reporting = this.reporting; ; reporting = this.reporting) {
      await reporting;
      if (reporting === this.reporting) break;
    }
  }
}
