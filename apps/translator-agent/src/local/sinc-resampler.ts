/**
 * A deterministic sample-rate converter for the recognizer's input: windowed-sinc interpolation at
 * the exact rational ratio. rtc-node's `AudioResampler` dithers its output (±a few LSB of noise that
 * differs run to run), which flips PocketSphinx's choice on borderline words: the same recording
 * must give the same words, so recognition resamples with this instead.
 */

/** Input samples on each side of an output sample. */
const HALF_TAPS = 16;
/** Pass band as a share of the lower Nyquist frequency: 24 → 16 kHz keeps up to 7.2 kHz (PocketSphinx reads to 6.8). */
const CUTOFF = 0.9;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function sinc(x: number): number {
  return x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
}

function blackman(x: number): number {
  // x in [-1, 1]
  const t = (x + 1) / 2;
  return 0.42 - 0.5 * Math.cos(2 * Math.PI * t) + 0.08 * Math.cos(4 * Math.PI * t);
}

export class SincResampler {
  /** Output rate ÷ input rate = up ÷ down. */
  private readonly up: number;
  private readonly down: number;
  /** Per output phase (its fractional position in `up`ths of an input sample), the 2 × HALF_TAPS weights. */
  private readonly kernels: Float64Array[];
  /** Input not yet fully used, starting HALF_TAPS − 1 samples of silence before the first. */
  private history: number[] = new Array<number>(HALF_TAPS - 1).fill(0);
  /** The next output's position in the history, in `up`ths of an input sample. */
  private position = (HALF_TAPS - 1) * 1;

  constructor(
    readonly inputRate: number,
    readonly outputRate: number,
  ) {
    const g = gcd(inputRate, outputRate);
    this.up = outputRate / g;
    this.down = inputRate / g;
    this.position = (HALF_TAPS - 1) * this.up;
    const fc = Math.min(1, this.up / this.down) * CUTOFF;
    this.kernels = Array.from({ length: this.up }, (_, phase) => {
      const fraction = phase / this.up;
      const kernel = new Float64Array(2 * HALF_TAPS);
      for (let j = 0; j < 2 * HALF_TAPS; j += 1) {
        const distance = fraction + HALF_TAPS - 1 - j;
        kernel[j] = fc * sinc(fc * distance) * blackman(distance / HALF_TAPS);
      }
      return kernel;
    });
  }

  /** The output for this input (what can be computed so far; the rest comes with the next push). */
  push(input: Int16Array): Int16Array {
    for (const sample of input) this.history.push(sample);
    const out: number[] = [];
    for (;;) {
      const base = Math.floor(this.position / this.up);
      if (base + HALF_TAPS >= this.history.length) break;
      const kernel = this.kernels[this.position % this.up]!;
      let acc = 0;
      for (let j = 0; j < 2 * HALF_TAPS; j += 1) acc += this.history[base - HALF_TAPS + 1 + j]! * kernel[j]!;
      out.push(Math.max(-32768, Math.min(32767, Math.round(acc))));
      this.position += this.down;
    }
    const used = Math.max(0, Math.floor(this.position / this.up) - HALF_TAPS + 1);
    if (used > 0) {
      this.history = this.history.slice(used);
      this.position -= used * this.up;
    }
    return Int16Array.from(out);
  }

  /** The last samples, held back for their right-hand neighbours: silence stands in for them. */
  flush(): Int16Array {
    return this.push(new Int16Array(HALF_TAPS + this.down));
  }
}
