import { cueText, cueTimestamp, exportTranscript, transcriptOrigin, type TranscriptSegment } from './transcripts';

const origin = new Date('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(origin.getTime() + ms);
const segment = (over: Partial<TranscriptSegment>): TranscriptSegment => ({
  participantIdentity: 'alice',
  language: 'en',
  text: 'hello there',
  translation: { language: 'es', text: 'hola' },
  startedAt: at(1_200),
  endedAt: at(3_400),
  ...over,
});

describe('transcript exports', () => {
  it('writes cue times from the origin with WebVTT and SRT separators, hours past 99 included', () => {
    expect(cueTimestamp(0, '.')).toBe('00:00:00.000');
    expect(cueTimestamp(3_723_045, '.')).toBe('01:02:03.045');
    expect(cueTimestamp(3_723_045, ',')).toBe('01:02:03,045');
    expect(cueTimestamp(100 * 3_600_000 + 1, '.')).toBe('100:00:00.001');
    expect(cueTimestamp(-50, '.')).toBe('00:00:00.000');
  });

  it('WebVTT: header, one cue per segment with the speaker as a voice tag', () => {
    const vtt = exportTranscript(
      [
        segment({}),
        segment({
          participantIdentity: 'bob',
          language: 'es',
          text: 'buenos días',
          translation: null,
          startedAt: at(4_000),
          endedAt: at(5_500),
        }),
      ],
      {
        format: 'vtt',
        language: null,
        origin,
      },
    );
    expect(vtt).toBe(
      'WEBVTT\n\n00:00:01.200 --> 00:00:03.400\n<v alice>hello there\n\n00:00:04.000 --> 00:00:05.500\n<v bob>buenos días\n',
    );
  });

  it('SRT: numbered cues with an "identity: " prefix; empty transcript is empty', () => {
    const srt = exportTranscript([segment({}), segment({ startedAt: at(61_000), endedAt: at(62_000), text: 'again' })], {
      format: 'srt',
      language: null,
      origin,
    });
    expect(srt).toBe('1\n00:00:01,200 --> 00:00:03,400\nalice: hello there\n\n2\n00:01:01,000 --> 00:01:02,000\nalice: again\n');
    expect(exportTranscript([], { format: 'srt', language: null, origin })).toBe('');
    expect(exportTranscript([], { format: 'vtt', language: null, origin })).toBe('WEBVTT\n');
  });

  it('per language: spoken text where spoken in it, else the translation, else no cue', () => {
    const spokenEs = segment({ participantIdentity: 'bob', language: 'es', text: 'sí', translation: { language: 'en', text: 'yes' } });
    const untranslated = segment({ text: 'untranslated', translation: null });
    expect(cueText(segment({}), 'es')).toBe('hola');
    expect(cueText(spokenEs, 'es')).toBe('sí');
    expect(cueText(untranslated, 'es')).toBeNull();
    const vtt = exportTranscript([segment({}), spokenEs, untranslated], { format: 'vtt', language: 'es', origin });
    expect(vtt.match(/<v /g)).toHaveLength(2);
    expect(vtt).toContain('<v alice>hola');
    expect(vtt).toContain('<v bob>sí');
    expect(vtt).not.toContain('untranslated');
  });

  it('escapes what would break a WebVTT cue and never lets text end a cue early', () => {
    const vtt = exportTranscript([segment({ participantIdentity: 'a<b>', text: 'x --> y & <z>\n\nnext' })], {
      format: 'vtt',
      language: null,
      origin,
    });
    expect(vtt).toBe('WEBVTT\n\n00:00:01.200 --> 00:00:03.400\n<v a&lt;b&gt;>x --&gt; y &amp; &lt;z&gt;\nnext\n');
  });

  it('counts from the room start, else the first segment', () => {
    expect(transcriptOrigin(origin, at(5))).toEqual(origin);
    expect(transcriptOrigin(null, at(5))).toEqual(at(5));
  });
});
