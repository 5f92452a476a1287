/**
 * STFT / iSTFT matching training/separation/model.py: 16 kHz, 512-point FFT, hop 256, periodic sqrt-Hann window on
 * analysis and synthesis (the squared window sums to exactly 1 at 50 % overlap, so overlap-add needs no
 * normalisation), `center=True` with zero padding: frame `t` covers samples `[t*256 - 256, t*256 + 256)`.
 * {@link FrameTransform} also takes other power-of-two sizes (hop = size / 2): the full-band path runs one at the
 * input's own rate.
 */
import FFT from 'fft.js';
import { StftKernel } from './stft-wasm.js';

export const MODEL_RATE = 16000;
export const NFFT = 512;
export const HOP = 256;
export const BINS = NFFT / 2 + 1;

/** Periodic sqrt-Hann window of length `n`. */
function sqrtHann(n: number): Float32Array {
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++) w[i] = Math.sqrt(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  return w;
}

/** Number of frames for `n` samples at hop `hop` (as torch.stft with center=True). */
export function frameCount(n: number, hop = HOP): number {
  return 1 + Math.floor(n / hop);
}

/**
 * Forward and inverse transforms of single frames of `size` samples (a power of two), reusing scratch buffers: in
 * WebAssembly where its kernel loads (stft-wasm.ts), with fft.js otherwise; the same values within float rounding.
 */
export class FrameTransform {
  readonly bins: number;
  readonly window: Float32Array;
  /** The WebAssembly kernel of this size, if it loads. */
  private readonly kernel: StftKernel | undefined;
  private readonly fft: FFT;
  private readonly frame: Float64Array;
  private readonly spec: number[];
  private readonly full: number[];
  private readonly time: number[];
  /** The masked spectra of {@link synthesizePair} (fft.js path). */
  private readonly maskedA: Float32Array;
  private readonly maskedB: Float32Array;

  /** @param wasm false: computes with fft.js even where the WebAssembly kernel loads (tests compare the two). */
  constructor(
    readonly size = NFFT,
    wasm = true,
  ) {
    this.bins = size / 2 + 1;
    this.window = sqrtHann(size);
    this.kernel = wasm ? StftKernel.forSize(size, this.window) : undefined;
    this.fft = new FFT(size);
    this.frame = new Float64Array(size);
    this.spec = this.fft.createComplexArray();
    this.full = this.fft.createComplexArray();
    this.time = this.fft.createComplexArray();
    this.maskedA = new Float32Array(2 * this.bins);
    this.maskedB = new Float32Array(2 * this.bins);
  }

  /**
   * Windowed FFT of `size` samples of `src` starting at `offset` (interleaved, `stride` values per sample,
   * channel `channel`). Writes `bins` interleaved (re, im) pairs into `out` (length `2 * bins`).
   */
  analyze(src: Float32Array, offset: number, stride: number, channel: number, out: Float32Array): void {
    if (this.kernel) return this.kernel.analyze(src, offset, stride, channel, out);
    const w = this.window;
    for (let i = 0; i < this.size; i++) this.frame[i] = src[(offset + i) * stride + channel] * w[i];
    this.fft.realTransform(this.spec, this.frame);
    for (let k = 0; k < 2 * this.bins; k++) out[k] = this.spec[k];
  }

  /**
   * Inverse FFT of a one-sided spectrum (`2 * bins` values), times `mask` (`bins` gains, each rounded to f32 with its
   * value as a Float32Array would) if given, windowed; writes `size` samples into `out`.
   */
  synthesize(spec: Float32Array, out: Float32Array, mask?: Float32Array): void {
    if (this.kernel) return this.kernel.synthesizePair(spec, undefined, out, undefined, mask);
    const { full, size, bins, window } = this;
    const a = mask ? this.masked(spec, mask, this.maskedA) : spec;
    for (let k = 0; k < 2 * bins; k++) full[k] = a[k];
    for (let k = bins; k < size; k++) {
      full[2 * k] = a[2 * (size - k)];
      full[2 * k + 1] = -a[2 * (size - k) + 1];
    }
    this.fft.inverseTransform(this.time, full);
    for (let i = 0; i < size; i++) out[i] = this.time[2 * i] * window[i];
  }

  /**
   * {@link synthesize} of two one-sided spectra at once, in one complex inverse FFT instead of two: both signals are
   * real, so the inverse of `A + iB` (each completed by conjugate symmetry) is `a + ib`. Writes `size` samples of
   * each into `outA` and `outB`; the same as two calls (with the same `mask`), within float rounding.
   */
  synthesizePair(specA: Float32Array, specB: Float32Array, outA: Float32Array, outB: Float32Array, mask?: Float32Array): void {
    if (this.kernel) return this.kernel.synthesizePair(specA, specB, outA, outB, mask);
    const { full, size, bins, window, time } = this;
    const a = mask ? this.masked(specA, mask, this.maskedA) : specA;
    const b = mask ? this.masked(specB, mask, this.maskedB) : specB;
    for (let k = 0; k < bins; k++) {
      full[2 * k] = a[2 * k] - b[2 * k + 1];
      full[2 * k + 1] = a[2 * k + 1] + b[2 * k];
    }
    for (let k = bins; k < size; k++) {
      const m = 2 * (size - k);
      full[2 * k] = a[m] + b[m + 1];
      full[2 * k + 1] = b[m] - a[m + 1];
    }
    this.fft.inverseTransform(time, full);
    for (let i = 0; i < size; i++) {
      outA[i] = time[2 * i] * window[i];
      outB[i] = time[2 * i + 1] * window[i];
    }
  }

  /** `spec` times `mask`, into `out` (f32, as the WebAssembly kernel rounds the products). */
  private masked(spec: Float32Array, mask: Float32Array, out: Float32Array): Float32Array {
    for (let k = 0; k < this.bins; k++) {
      out[2 * k] = spec[2 * k] * mask[k];
      out[2 * k + 1] = spec[2 * k + 1] * mask[k];
    }
    return out;
  }
}

/** Concatenates sample arrays (returns the only part itself when there is one). */
export function concatSamples(parts: Float32Array[]): Float32Array {
  if (parts.length === 1) return parts[0];
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
