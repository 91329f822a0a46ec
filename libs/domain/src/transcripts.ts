/**
 * Transcript exports (extensions.md "Transcripts"): one cue per segment, times from the room's
 * start, the speaker as a WebVTT voice tag or an SRT prefix. Pure: the API reads the segments, this
 * decides what each export says.
 */

export interface TranscriptSegment {
  participantIdentity: string;
  /** The language it was spoken in. */
  language: string;
  text: string;
  translation: { language: string; text: string } | null;
  startedAt: Date;
  endedAt: Date;
}

export type TranscriptFormat = 'vtt' | 'srt';

export const TRANSCRIPT_CONTENT_TYPES: Record<TranscriptFormat, string> = {
  vtt: 'text/vtt; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
};

/**
 * The text a cue shows: as spoken without `language`; with it, the spoken text when spoken in it,
 * else the translation into it; null (no cue) when the segment has neither.
 */
export function cueText(segment: TranscriptSegment, language: string | null): string | null {
  if (language === null || segment.language === language) return segment.text;
  return segment.translation?.language === language ? segment.translation.text : null;
}

/** hh:mm:ss plus milliseconds after `separator` ('.' for WebVTT, ',' for SRT); hours grow past 99. */
export function cueTimestamp(ms: number, separator: '.' | ','): string {
  const whole = Math.max(0, Math.round(ms));
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = Math.floor((whole % 60_000) / 1000);
  const millis = whole % 1000;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(hours)}:${two(minutes)}:${two(seconds)}${separator}${String(millis).padStart(3, '0')}`;
}

/** A cue's text may not contain a blank line (it would end the cue) nor, in WebVTT, an unescaped `<`, `&` or `-->`. */
function oneBlock(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\n\s*\n+/g, '\n')
    .trim();
}

function vttEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A voice annotation ends at `>`: the identity is escaped like cue text. */
const vttVoice = (identity: string) => vttEscape(identity).replace(/\s+/g, ' ');

/**
 * The whole transcript in `format`: one cue per segment that has text in `language` (all of them
 * as spoken when `language` is null), in the order given (spoken order), times from `origin`. No
 * segment: WebVTT's header alone, or an empty SRT.
 */
export function exportTranscript(
  segments: Iterable<TranscriptSegment>,
  options: { format: TranscriptFormat; language: string | null; origin: Date },
): string {
  const origin = options.origin.getTime();
  const separator = options.format === 'vtt' ? '.' : ',';
  const cues: string[] = [];
  for (const segment of segments) {
    const text = cueText(segment, options.language);
    if (text === null) continue;
    const body = oneBlock(text);
    if (!body) continue;
    const times = `${cueTimestamp(segment.startedAt.getTime() - origin, separator)} --> ${cueTimestamp(
      Math.max(segment.endedAt.getTime(), segment.startedAt.getTime()) - origin,
      separator,
    )}`;
    if (options.format === 'vtt') cues.push(`${times}\n<v ${vttVoice(segment.participantIdentity)}>${vttEscape(body)}\n`);
    else cues.push(`${cues.length + 1}\n${times}\n${segment.participantIdentity}: ${body}\n`);
  }
  if (options.format === 'vtt') return ['WEBVTT\n', ...cues].join('\n');
  return cues.join('\n');
}

/** The instant cue times count from: the room's start, else (a room that never started) its first segment's start. */
export function transcriptOrigin(roomStartedAt: Date | null, firstSegmentStartedAt: Date | null): Date {
  return roomStartedAt ?? firstSegmentStartedAt ?? new Date(0);
}
