import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { EspeakTTS } from './espeak-tts';

initializeLogger({ pretty: false, level: 'error' });

const RATE = 24_000;

/** The synthesized samples of `text`, and how long the silence after its last sound lasts (seconds). */
async function speak(engine: EspeakTTS, text: string): Promise<{ seconds: number; trailingSilence: number }> {
  const samples: number[] = [];
  for await (const audio of engine.synthesize(text)) {
    const frame = audio.frame;
    for (const sample of frame.data.subarray(0, frame.samplesPerChannel)) samples.push(sample);
  }
  // rtc-node's resampler dithers eSpeak NG's digital silence by a few units.
  let last = samples.length - 1;
  while (last >= 0 && Math.abs(samples[last]!) <= 64) last -= 1;
  return { seconds: samples.length / RATE, trailingSilence: (samples.length - 1 - last) / RATE };
}

describe('EspeakTTS', () => {
  afterAll(async () => {
    await dispose();
  });

  it("leaves out the pause after the text for simultaneous mode's pieces: the speech ends with its last word", async () => {
    const sentence = await speak(new EspeakTTS('es', RATE, undefined, 1.3), 'hombre joven cerrado');
    const piece = await speak(new EspeakTTS('es', RATE, undefined, 1.3, false), 'hombre joven cerrado');
    // ≈ 0.18 s of pause at 1.3 × the normal rate, against none.
    expect(sentence.trailingSilence).toBeGreaterThan(0.12);
    expect(piece.trailingSilence).toBeLessThan(0.04);
    expect(sentence.seconds - piece.seconds).toBeGreaterThan(0.1);
  });
});
