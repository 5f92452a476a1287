/**
 * The model's speech masks over a 16 kHz stream: push interleaved 16 kHz samples in pieces of any size; the downmix
 * (mean of the channels) is analysed ({@link StftStream}, 512/256) and the model runs on chunks of `chunkFrames`
 * frames plus {@link MODEL_CONTEXT} frames of context each side, so every mask equals a whole-file run's while memory
 * holds about two chunks (one being masked, the next being analysed) whatever the input length. Each frame also gets
 * an upper-band gain for the bands above the model's 8 kHz (see {@link upperBandGain}).
 */
import { MODEL_CONTEXT, type MaskModel } from './model.js';
import { BINS, MODEL_RATE, NFFT } from './stft.js';
import { StftStream } from './stft-stream.js';

/** The 16 kHz bins whose masks give the upper-band gain: 4–8 kHz. */
const UPPER_FROM = Math.round((4000 * NFFT) / MODEL_RATE);

/**
 * Gain for a frame's bands above 8 kHz, from the model's mask in its 4–8 kHz bins: the square root of the mask
 * weighted by the mixture's power there (r = Σ m·P / Σ P, the share of the frame's 4–8 kHz power the model calls
 * speech, taken as a power ratio). Measured at 44.1 kHz on held-out clean voices: r itself as the gain keeps 0.66 of
 * their 8–16 kHz energy, √r keeps 0.78 (the target is 0.7), at the cost of more of a hiss or a cymbal in
 * the speech stem above 8 kHz when the model is unsure (hiss alone: −12 dB instead of −24 dB there).
 */
export function upperBandGain(mask: Float32Array, mag: Float32Array): number {
  let num = 0;
  let den = 0;
  for (let k = UPPER_FROM; k < BINS; k++) {
    const p = mag[k] * mag[k];
    num += mask[k] * p;
    den += p;
  }
  return den > 1e-20 ? Math.sqrt(num / den) : 0;
}

export interface MaskStreamOptions {
  /** Frames whose masks one model run produces (default 500 ≈ 8 s). */
  chunkFrames?: number;
}

export class MaskStream {
  private readonly chunkFrames: number;
  private readonly stft = new StftStream(1, NFFT);
  /** Downmix magnitudes of frames `magsBase ..`. */
  private mags: Float32Array[] = [];
  private magsBase = 0;
  /** Masks and upper-band gains of frames `rowsBase .. masked`. */
  private rows: Float32Array[] = [];
  private uppers: number[] = [];
  private rowsBase = 0;
  private masked = 0;
  /** Frames whose masks are being computed or done (`masked ≤ queued`). */
  private queued = 0;
  /** The model runs queued so far, in order. */
  private runs: Promise<void> = Promise.resolve();

  constructor(
    private readonly model: MaskModel,
    private readonly channels: number,
    options: MaskStreamOptions = {},
  ) {
    if (!Number.isInteger(channels) || channels < 1) throw new Error(`channels must be a positive integer, got ${channels}`);
    this.chunkFrames = Math.max(1, Math.floor(options.chunkFrames ?? 500));
  }

  /** Frames whose masks are known (`0 .. available`). */
  get available(): number {
    return this.masked;
  }

  /** All frames, once {@link finish} was called. */
  get frames(): number | undefined {
    return this.stft.frames;
  }

  /**
   * Feeds interleaved 16 kHz samples; starts the model on every chunk they complete. Resolves at once while at most
   * one chunk is being masked (a model on its own thread runs it meanwhile, see model-thread.ts), else once the
   * earlier ones are done; rejects with a failed run's error.
   */
  async push(samples: Float32Array): Promise<void> {
    if (samples.length % this.channels !== 0) throw new Error('push(): samples must hold whole frames of all channels');
    this.stft.push(downmix(samples, this.channels));
    this.magnitudes();
    while (this.stft.analysed - this.queued >= this.chunkFrames + MODEL_CONTEXT) this.queue(this.queued + this.chunkFrames);
    if (this.queued - this.masked > this.chunkFrames) await this.runs;
  }

  /** Ends the input and masks the last frames. */
  async finish(): Promise<void> {
    await this.runs;
    const total = this.stft.end();
    this.magnitudes();
    while (this.masked < total) await this.runChunk(Math.min(total, this.masked + this.chunkFrames));
  }

  /** Masks the frames up to `end` after the chunks queued before (in order: each takes the magnitudes it needs). */
  private queue(end: number): void {
    this.queued = end;
    this.runs = this.runs.then(() => this.runChunk(end));
    // Its failure is thrown by the next push() or finish() that waits for it.
    this.runs.catch(() => undefined);
  }

  /** Mask (`BINS` gains) of a known frame not yet released. */
  mask(t: number): Float32Array {
    return this.rows[t - this.rowsBase];
  }

  /** Upper-band gain of a known frame not yet released. */
  upper(t: number): number {
    return this.uppers[t - this.rowsBase];
  }

  /** Frees the masks of frames before `t`. */
  release(t: number): void {
    const n = Math.min(t, this.masked) - this.rowsBase;
    if (n <= 0) return;
    this.rows.splice(0, n);
    this.uppers.splice(0, n);
    this.rowsBase += n;
  }

  private magnitudes(): void {
    for (let t = this.magsBase + this.mags.length; t < this.stft.analysed; t++) {
      const spec = this.stft.spectrum(t);
      const mag = new Float32Array(BINS);
      // Not Math.hypot: several times slower, and its guard against overflow is moot for audio spectra.
      for (let k = 0; k < BINS; k++) mag[k] = Math.sqrt(spec[2 * k] * spec[2 * k] + spec[2 * k + 1] * spec[2 * k + 1]);
      this.mags.push(mag);
    }
    this.stft.skip(this.stft.analysed);
  }

  private async runChunk(end: number): Promise<void> {
    const from = Math.max(0, this.masked - MODEL_CONTEXT);
    const to = Math.min(this.stft.frames ?? Infinity, end + MODEL_CONTEXT, this.magsBase + this.mags.length);
    const frames = to - from;
    const input = new Float32Array(frames * BINS);
    for (let t = from; t < to; t++) input.set(this.mags[t - this.magsBase], (t - from) * BINS);
    const mask = await this.model.mask(input, frames);
    for (let t = this.masked; t < end; t++) {
      const row = mask.slice((t - from) * BINS, (t - from + 1) * BINS);
      this.rows.push(row);
      this.uppers.push(upperBandGain(row, this.mags[t - this.magsBase]));
    }
    this.masked = end;
    // Magnitudes before the next chunk's left context are no longer needed.
    const keep = Math.max(0, this.masked - MODEL_CONTEXT);
    if (keep > this.magsBase) {
      this.mags.splice(0, keep - this.magsBase);
      this.magsBase = keep;
    }
  }
}

/** Mean of the channels (mono input is returned as is). */
function downmix(samples: Float32Array, channels: number): Float32Array {
  if (channels === 1) return samples;
  const n = samples.length / channels;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < channels; c++) s += samples[i * channels + c];
    out[i] = s / channels;
  }
  return out;
}
