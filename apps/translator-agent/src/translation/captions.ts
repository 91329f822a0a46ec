import type { LocalParticipant } from '@livekit/rtc-node';
import type { TranscriptSegment, TranslationSegment } from './speaker-stream';

/** LiveKit's text-stream topic for transcriptions (what `useTranscriptions` reads). */
export const TRANSCRIPTION_TOPIC = 'lk.transcription';

/** LiveKit's own transcription attributes, as agents-js sets them. */
export const ATTR = {
  trackId: 'lk.transcribed_track_id',
  segmentId: 'lk.segment_id',
  final: 'lk.transcription_final',
} as const;

/** Ours: which text a segment is, whose, in which language. */
export const CAPTION_ATTR = {
  kind: 'translation.kind',
  speaker: 'translation.speaker',
  language: 'translation.language',
  sourceLanguage: 'translation.source_language',
} as const;

/**
 * Captions as LiveKit transcriptions: every segment is a text stream on `lk.transcription`, sent on
 * behalf of the speaker (`senderIdentity`) with the speaker's track id, as agents-js does for a user's
 * transcription, so clients attribute it to the person who spoke. The original text (interim, then
 * final) and each translation are separate segments; a translation's id is the original's plus `-<target>`.
 */
export class CaptionPublisher {
  constructor(private readonly participant: () => Pick<LocalParticipant, 'streamText'> | undefined) {}

  async transcript(s: TranscriptSegment): Promise<void> {
    await this.send(s.text, s.speakerIdentity, {
      [ATTR.trackId]: s.trackSid,
      [ATTR.segmentId]: s.segmentId,
      [ATTR.final]: String(s.final),
      [CAPTION_ATTR.kind]: 'transcript',
      [CAPTION_ATTR.speaker]: s.speakerIdentity,
      ...(s.language ? { [CAPTION_ATTR.language]: s.language } : {}),
    });
  }

  async translation(s: TranslationSegment): Promise<void> {
    await this.send(s.text, s.speakerIdentity, {
      [ATTR.trackId]: s.trackSid,
      [ATTR.segmentId]: `${s.segmentId}-${s.target}`,
      [ATTR.final]: 'true',
      [CAPTION_ATTR.kind]: 'translation',
      [CAPTION_ATTR.speaker]: s.speakerIdentity,
      [CAPTION_ATTR.language]: s.target,
      ...(s.source ? { [CAPTION_ATTR.sourceLanguage]: s.source } : {}),
    });
  }

  private async send(text: string, senderIdentity: string, attributes: Record<string, string>): Promise<void> {
    const participant = this.participant();
    if (!participant || !text) return;
    const writer = await participant.streamText({ topic: TRANSCRIPTION_TOPIC, senderIdentity, attributes });
    try {
      await writer.write(text);
    } finally {
      await writer.close();
    }
  }
}
