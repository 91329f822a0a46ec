import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { goForward, librivoxClips, localProviders, rms } from '../../test/support/local-speech';
import { translateFile, type FileTranslationDetail } from '../tools/file-translation';
import { wordErrorRate } from '../tools/wer';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import type { SpeechProviders } from '../translation/speaker-pipeline';

initializeLogger({ pretty: false, level: 'error' });

/**
 * Word error rate of PocketSphinx's en-us model on Debian's LibriVox clips, as measured (see
 * docs/performance.md), with a margin: a regression (a broken resampling, a wrong model, a cut
 * utterance) lands far above.
 */
const WER_BOUND: Record<string, number> = {
  'sense_and_sensibility_01_austen_64kb-0870': 0.5, // measured 0.364
  'sense_and_sensibility_01_austen_64kb-0880': 0.4, // 0.250
  'sense_and_sensibility_01_austen_64kb-0890': 0.55, // 0.429
  'sense_and_sensibility_01_austen_64kb-0920': 0.35, // 0.211
  'sense_and_sensibility_01_austen_64kb-0930': 0.8, // 0.625
};
const OVERALL_WER_BOUND = 0.45; // measured 0.352 over the 71 words of the 5 clips

describe('the local pipeline (PocketSphinx → Apertium → eSpeak NG) on recorded human speech', () => {
  let providers: SpeechProviders;
  const errors: unknown[] = [];
  const run = (audio: Parameters<typeof translateFile>[0]['audio']) =>
    translateFile({ from: 'en', to: 'es', audio, providers, sampleRate: OUTPUT_SAMPLE_RATE, paced: false, onError: (e) => errors.push(e) });

  beforeAll(() => {
    providers = localProviders((e) => errors.push(e));
  });
  afterAll(async () => {
    await providers.close?.();
    await dispose();
  });

  it('recognizes the LibriVox clips within the recorded word error rate, per clip and overall', async () => {
    let errorsTotal = 0;
    let wordsTotal = 0;
    for (const clip of librivoxClips()) {
      const { result } = await run(clip.audio);
      const wer = wordErrorRate(clip.reference, result.transcript);
      const words = clip.reference.split(/\s+/).length;
      errorsTotal += wer * words;
      wordsTotal += words;
      expect({ clip: clip.id, wer }).toEqual({ clip: clip.id, wer: expect.any(Number) });
      expect(wer).toBeLessThanOrEqual(WER_BOUND[clip.id]!);
      // Every clip comes out as Spanish speech.
      expect(result.translation.length).toBeGreaterThan(0);
      expect(result.output_seconds).toBeGreaterThan(0.5);
    }
    expect(wordsTotal).toBeGreaterThan(50);
    expect(errorsTotal / wordsTotal).toBeLessThanOrEqual(OVERALL_WER_BOUND);
    expect(errors).toEqual([]);
  }, 180_000);

  describe('"go forward ten meters" (goforward.raw)', () => {
    let detail: FileTranslationDetail;
    beforeAll(async () => {
      detail = await run(goForward());
    }, 60_000);

    it('is recognized word for word and translated into Spanish text holding the translated words', () => {
      expect(detail.result.transcript).toBe('go forward ten meters');
      const spanish = detail.result.translation.toLowerCase();
      expect(spanish).toMatch(/\bdiez\b/);
      expect(spanish).toMatch(/\bmetros\b/);
      expect(spanish).toMatch(/\b(va|ir|avanza|adelante|frente)\b/);
      expect(spanish).not.toMatch(/\b(forward|ten|meters)\b/);
    });

    it('comes out as non-silent speech of plausible length at the published track rate', () => {
      expect(detail.sampleRate).toBe(OUTPUT_SAMPLE_RATE);
      expect(detail.frameRates).toEqual([OUTPUT_SAMPLE_RATE]);
      // Four or five Spanish words: about a second or two of speech, not a click and not a minute.
      expect(detail.result.output_seconds).toBeGreaterThan(0.8);
      expect(detail.result.output_seconds).toBeLessThan(4);
      expect(detail.audio.length / OUTPUT_SAMPLE_RATE).toBeCloseTo(detail.result.output_seconds, 2);
      expect(rms(detail.audio)).toBeGreaterThan(500);
      // Speech has pauses and syllables: the loudness varies over 100 ms windows.
      const windows = Array.from({ length: Math.floor(detail.audio.length / 2400) }, (_, i) =>
        rms(detail.audio.subarray(i * 2400, (i + 1) * 2400)),
      );
      expect(Math.max(...windows)).toBeGreaterThan(4 * Math.min(...windows));
    });
  });
});
