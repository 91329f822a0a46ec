import { initializeLogger } from '@livekit/agents';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dispose } from '@livekit/rtc-node';
import { goForward, librivoxClips, localProviders, rms } from '../../test/support/local-speech';
import { translateFile, type FileTranslationDetail } from '../tools/file-translation';
import { parseWav } from '../tools/wav';
import { wordErrorRate, words } from '../tools/wer';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import type { SpeechProviders } from '../translation/speech-providers';

initializeLogger({ pretty: false, level: 'error' });

/**
 * Word error rate of PocketSphinx's en-us model on Debian's LibriVox clips, as measured (see
 * docs/performance.md), with a margin: a regression (a broken resampling, a wrong model, a cut
 * utterance) lands far above.
 */
const WER_BOUND: Record<string, number> = {
  'sense_and_sensibility_01_austen_64kb-0870': 0.5, // measured 0.364
  'sense_and_sensibility_01_austen_64kb-0880': 0.4, // 0.250
  'sense_and_sensibility_01_austen_64kb-0890': 0.5, // 0.357
  'sense_and_sensibility_01_austen_64kb-0920': 0.65, // 0.526 (0.211 with the second pass, which 0930 paid for: see pocketsphinx-stream.py)
  'sense_and_sensibility_01_austen_64kb-0930': 0.3, // 0.125 (0.750 with the second pass)
};
const OVERALL_WER_BOUND = 0.45; // measured 0.366 over the 71 words of the 5 clips, with or without the second pass

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
      expect(detail.result.transcript).toBe('Go forward ten meters'); // casing restored
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

  it("places every utterance's end where it is in the track, not only the first one's (latency counts from there)", async () => {
    const once = goForward();
    const gap = new Int16Array(2 * once.sampleRate);
    const twice = { ...once, samples: Int16Array.from([...once.samples, ...gap, ...once.samples]) };
    const { transcripts } = await run(twice);
    const ends = transcripts.filter((t) => t.final).map((t) => t.audioEndTime!);
    expect(ends).toHaveLength(2);
    // The same words, 2.79 s of clip and 2 s of silence later.
    expect(ends[1]! - ends[0]!).toBeCloseTo(once.samples.length / once.sampleRate + 2, 1);
  }, 60_000);

  describe('the first person ("i", which PocketSphinx writes lowercase)', () => {
    /** A standalone "i" in the output: Apertium leaves a lowercase one untranslated. */
    const STRAY_I = /(^|[^\p{L}])i([^\p{L}]|$)/iu;
    const translate = async (text: string) => {
      let out = '';
      for await (const chunk of providers.translator.translate({ task: { kind: 'fixed', source: 'en', target: 'es' }, text, context: [] }))
        out += chunk;
      return out;
    };

    it.each([
      ['i think so', /^creo que sí$/i],
      ["i'm here", /^(soy|estoy) aquí$/i],
      ["i'll go and i've seen it", /^iré y lo he visto$/i],
    ])('%j is translated without a stray "i"', async (text, expected) => {
      const spanish = await translate(text);
      expect(spanish).not.toMatch(STRAY_I);
      expect(spanish).toMatch(expected);
    });

    it('a recorded clip whose transcript holds "i" is translated without one', async () => {
      // Debian ships no recording of a first-person sentence: eSpeak NG records one.
      const dir = mkdtempSync(path.join(os.tmpdir(), 'first-person-'));
      try {
        const file = path.join(dir, 'i-think-so.wav');
        execFileSync('espeak-ng', ['-v', 'en-us', '-w', file, 'I think so.']);
        const { result } = await run(parseWav(readFileSync(file)));
        expect(words(result.transcript)).toContain('i');
        expect(result.translation.length).toBeGreaterThan(0);
        expect(result.translation).not.toMatch(STRAY_I);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
