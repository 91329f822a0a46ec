import { AudioFrame, dispose } from '@livekit/rtc-node';
import { setImmediate } from 'node:timers/promises';
import { LanguageOutput } from './language-output';

const frame = (value: number, rate = 24_000) => new AudioFrame(new Int16Array(rate / 100).fill(value), rate, 1, rate / 100);

async function* speaker(value: number, count: number) {
  for (let i = 0; i < count; i += 1) {
    await setImmediate();
    yield frame(value);
  }
}

describe('LanguageOutput: one published language track', () => {
  afterAll(() => dispose());

  it('plays two speakers’ utterances one after the other, never interleaved (A A A B B B, not A B A B)', async () => {
    const heard: number[] = [];
    const output = new LanguageOutput();
    output.setSink({ sampleRate: 24_000, captureFrame: async (f) => void heard.push(f.data[0]!) });
    await Promise.all([output.play(speaker(1, 5)), output.play(speaker(2, 5)), output.play(speaker(3, 2))]);
    expect(heard).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3]);
  });

  it('keeps audio that arrives before the track is published, and plays it once it is', async () => {
    const heard: number[] = [];
    const output = new LanguageOutput();
    const playing = output.play(speaker(7, 3));
    await setImmediate();
    output.setSink({ sampleRate: 24_000, captureFrame: async (f) => void heard.push(f.data[0]!) });
    await playing;
    expect(heard).toEqual([7, 7, 7]);
  });

  it('resamples a provider’s other rate (ElevenLabs’ 22.05 kHz) to the track’s', async () => {
    const rates = new Set<number>();
    let samples = 0;
    const output = new LanguageOutput();
    output.setSink({
      sampleRate: 24_000,
      captureFrame: async (f) => {
        rates.add(f.sampleRate);
        samples += f.samplesPerChannel;
      },
    });
    await output.play(
      (async function* () {
        for (let i = 0; i < 100; i += 1) yield frame(1000, 22_050);
      })(),
    );
    expect([...rates]).toEqual([24_000]);
    expect(samples).toBeGreaterThan(23_000); // one second of audio
    expect(samples).toBeLessThanOrEqual(24_000);
  });
});
