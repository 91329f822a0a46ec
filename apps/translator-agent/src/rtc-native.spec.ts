import { AudioFrame, AudioResampler, AudioResamplerQuality, dispose } from '@livekit/rtc-node';

describe('@livekit/rtc-node native library', () => {
  // The FFI server keeps the process alive until disposed.
  afterAll(() => dispose());

  it('loads and runs native code (a resampler backed by the FFI library)', () => {
    const resampler = new AudioResampler(48_000, 24_000, 1, AudioResamplerQuality.MEDIUM);
    const input = new AudioFrame(new Int16Array(4_800).fill(1000), 48_000, 1, 4_800);
    const out = [...resampler.push(input), ...resampler.flush()];
    const samples = out.reduce((sum, f) => sum + f.samplesPerChannel, 0);
    expect(out.every((f) => f.sampleRate === 24_000)).toBe(true);
    expect(samples).toBeGreaterThan(2_000);
    expect(samples).toBeLessThanOrEqual(2_400);
  });
});
