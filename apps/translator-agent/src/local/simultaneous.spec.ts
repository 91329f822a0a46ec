import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { joinedTurn, localProviders } from '../../test/support/local-speech';
import { translateFile, type FileTranslationDetail } from '../tools/file-translation';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import type { SpeechProviders } from '../translation/speech-providers';
import { DEFAULT_CHUNK_POLICY } from '../translation/stable-chunks';
import { summarizeWordLag } from '../translation/word-lag';

initializeLogger({ pretty: false, level: 'error' });

/**
 * Debian's five LibriVox clips said as one turn with 0.2 s gaps (no pause PocketSphinx ends an
 * utterance at) through the local pipeline: sentence mode speaks nothing until the 23 s turn ends,
 * simultaneous mode speaks chunks while it goes on. Order, not time, is asserted (latency is the bench's).
 */
describe('simultaneous mode on one continuous 23 s turn (PocketSphinx → Apertium → eSpeak NG)', () => {
  let providers: SpeechProviders;
  const errors: unknown[] = [];
  let sentence: FileTranslationDetail;
  let simultaneous: FileTranslationDetail;
  const bound = DEFAULT_CHUNK_POLICY.maxChunkSeconds * 1000;

  beforeAll(async () => {
    providers = localProviders((e) => errors.push(e));
    const run = (policy: typeof DEFAULT_CHUNK_POLICY | null) =>
      translateFile({
        from: 'en',
        to: 'es',
        audio: joinedTurn(),
        providers,
        sampleRate: OUTPUT_SAMPLE_RATE,
        paced: false,
        simultaneous: policy,
        onError: (e) => errors.push(e),
      });
    sentence = await run(null);
    simultaneous = await run(DEFAULT_CHUNK_POLICY);
  }, 120_000);
  afterAll(async () => {
    await providers.close?.();
    await dispose();
  });

  it('is one utterance, recognized word for word as in sentence mode', () => {
    expect(sentence.segments).toHaveLength(1);
    expect(simultaneous.segments.map((s) => s.text)).toEqual(sentence.segments.map((s) => s.text));
    expect(simultaneous.segments[0]!.text.split(' ').length).toBeGreaterThan(50);
    expect(errors).toEqual([]);
  });

  it('speaks at least 3 chunks before the turn ends; sentence mode none', () => {
    const beforeEnd = (d: FileTranslationDetail) =>
      d.events.slice(0, d.events.indexOf('final:file-1')).filter((e) => e === 'spoken').length;
    expect(beforeEnd(simultaneous)).toBeGreaterThanOrEqual(3);
    expect(beforeEnd(sentence)).toBe(0);
    expect(sentence.spoken).toHaveLength(1);
  });

  it('translates the words the transcript keeps: none of the words sent to translation is revised by the final recognition', () => {
    const [segment] = simultaneous.segments;
    expect(segment!.committed).toEqual({ text: segment!.text, revisedWords: [], revised: false });
    // Chunks went to translation while the turn went on, before its final transcript.
    const finalAt = simultaneous.events.indexOf('final:file-1');
    expect(simultaneous.events.slice(0, finalAt).filter((e) => e === 'translation:file-1').length).toBeGreaterThanOrEqual(3);
  });

  it(`speaks no chunk longer than the bound (${bound} ms of speech, first word's start to last word's end)`, () => {
    for (const chunk of simultaneous.spoken) expect(chunk.speechEndAt! - chunk.wordStarts[0]!).toBeLessThanOrEqual(bound + 1);
  });

  it("carries every word once, in spoken order, and its lag is counted from that word's start", () => {
    const starts = simultaneous.spoken.flatMap((c) => c.wordStarts);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(new Set(starts).size).toBe(starts.length);
    expect(starts.length).toBe(simultaneous.segments[0]!.text.split(' ').length);
    expect(summarizeWordLag(simultaneous.spoken)?.words).toBe(starts.length);
  });

  it("keeps the interim captions of the speaker; the translated caption grows chunk by chunk into the segment's translation", () => {
    const interims = simultaneous.transcripts.filter((t) => !t.final);
    expect(interims.length).toBeGreaterThan(10);
    const texts = simultaneous.translations.filter((t) => t.segmentId === 'file-1').map((t) => t.text);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < texts.length; i += 1) expect(texts[i]!.startsWith(texts[i - 1]!)).toBe(true);
    expect(simultaneous.segments[0]!.translation).toEqual({ language: 'es', text: texts[texts.length - 1] });
    expect(simultaneous.result.translation).toBe(texts[texts.length - 1]);
  });
});
