/**
 * STFT / iSTFT matching training/separation/model.py: 16 kHz, 512-point FFT, hop 256, periodic sqrt-Hann window on
 * analysis and synthesis (the squared window sums to exactly 1 at 50 % overlap, so overlap-add needs no
 * normalisation), `center=True` with zero padding: frame `t` covers samples `[t*256 - 256, t*256 + 256)`.
 */
import FFT from 'fft.js';

export const MODEL_RATE = 16000;
export const NFFT = 512;
export const HOP = 256;
export const BINS = NFFT / 2 + 1;

/** Periodic sqrt-Hann window of length {@link NFFT}. */
export const WINDOW: Float32Array = (() => {
  const w = new Float32Array(NFFT);
  for (let i = 0; i < NFFT; i++) w[i] = Math.sqrt(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / NFFT));
  return w;
})();

/** Number of frames for `n` samples (as torch.stft with center=True). */
export function frameCount(n: number): number {
  return 1 + Math.floor(n / HOP);
}

/** Forward and inverse transforms of single frames, reusing scratch buffers. */
export class FrameTransform {
  private readonly fft = new FFT(NFFT);
  private readonly frame = new Float64Array(NFFT);
  private readonly spec: number[] = this.fft.createComplexArray();
  private readonly full: number[] = this.fft.createComplexArray();
  private readonly time: number[] = this.fft.createComplexArray();

  /**
   * Windowed FFT of `NFFT` samples of `src` starting at `offset` (interleaved, `stride` values per sample,
   * channel `channel`). Writes `BINS` interleaved (re, im) pairs into `out` (length `2 * BINS`).
   */
  analyze(src: Float32Array, offset: number, stride: number, channel: number, out: Float32Array): void {
    for (let i = 0; i < NFFT; i++) this.frame[i] = src[(offset + i) * stride + channel] * WINDOW[i];
    this.fft.realTransform(this.spec, this.frame);
    for (let k = 0; k < 2 * BINS; k++) out[k] = this.spec[k];
  }

  /** Inverse FFT of a one-sided spectrum (`2 * BINS` values), windowed; writes `NFFT` samples into `out`. */
  synthesize(spec: Float32Array, out: Float32Array): void {
    const full = this.full;
    for (let k = 0; k < 2 * BINS; k++) full[k] = spec[k];
    for (let k = BINS; k < NFFT; k++) {
      full[2 * k] = spec[2 * (NFFT - k)];
      full[2 * k + 1] = -spec[2 * (NFFT - k) + 1];
    }
    this.fft.inverseTransform(this.time, full);
    for (let i = 0; i < NFFT; i++) out[i] = this.time[2 * i] * WINDOW[i];
  }
}
