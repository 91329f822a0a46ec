import { SincResampler } from './sinc-resampler';

function tone(hz: number, rate: number, seconds: number, amplitude = 10_000): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)));
}

/** The tone's amplitude in the signal (correlation with a sine and cosine of that frequency). */
function amplitudeAt(samples: Int16Array, hz: number, rate: number): number {
  let s = 0;
  let c = 0;
  for (let i = 0; i < samples.length; i += 1) {
    s += samples[i]! * Math.sin((2 * Math.PI * hz * i) / rate);
    c += samples[i]! * Math.cos((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(s, c)) / samples.length;
}

describe('SincResampler', () => {
  it('gives the same samples for the same input, however it is split into pushes', () => {
    const input = tone(440, 24_000, 0.5);
    const whole = new SincResampler(24_000, 16_000);
    const a = Int16Array.from([...whole.push(input), ...whole.flush()]);
    const split = new SincResampler(24_000, 16_000);
    const parts: number[] = [];
    for (let i = 0; i < input.length; i += 240) parts.push(...split.push(input.subarray(i, i + 240)));
    parts.push(...split.flush());
    expect(Int16Array.from(parts)).toEqual(a);
    expect(Math.abs(a.length - 8000)).toBeLessThanOrEqual(20);
  });

  it('keeps a speech-band tone and removes one above the new Nyquist frequency', () => {
    const resampler = new SincResampler(24_000, 16_000);
    const kept = resampler.push(tone(1000, 24_000, 0.5));
    expect(amplitudeAt(kept.subarray(100, 7900), 1000, 16_000)).toBeGreaterThan(9_500);
    const aliased = new SincResampler(24_000, 16_000).push(tone(10_000, 24_000, 0.5));
    // 10 kHz would fold to 6 kHz at 16 kHz: almost nothing is left of it.
    expect(amplitudeAt(aliased.subarray(100, 7900), 6000, 16_000)).toBeLessThan(300);
  });

  it('upsamples too (a 16 kHz recording delivered at 24 kHz)', () => {
    const out = new SincResampler(16_000, 24_000).push(tone(500, 16_000, 0.5));
    expect(amplitudeAt(out.subarray(100, 11_800), 500, 24_000)).toBeGreaterThan(9_500);
  });
});
