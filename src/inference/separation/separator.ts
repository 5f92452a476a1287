/**
 * Streaming speech estimation at 16 kHz: push interleaved samples in pieces of any size, get the speech estimate
 * back (same layout) as soon as it is final. The mask comes from the downmix (mean of the channels) and is applied
 * to every channel's STFT, so a voice panned to one side stays there. The model runs on chunks of `chunkFrames`
 * frames plus {@link MODEL_CONTEXT} frames of context each side, so the result equals a whole-file run while memory
 * holds only one chunk (≈ (chunk + 2·context) frames of spectra) whatever the input length.
 */
import { MODEL_CONTEXT, type SeparationModel } from './model.js';
import { BINS, FrameTransform, HOP, NFFT, WINDOW, frameCount } from './stft.js';

export interface StreamingSeparatorOptions {
  /** Frames whose masks one model run produces (default 500 ≈ 8 s). */
  chunkFrames?: number;
}

export class StreamingSeparator {
  private readonly chunkFrames: number;
  private readonly transform = new FrameTransform();
  /** Interleaved input samples from absolute sample index `bufStart` on. */
  private buf: Float32Array;
  private bufLen = 0;
  private bufStart = -HOP;
  private samplesIn = 0;
  /** Frames `framesBase ..` : downmix magnitude and per-channel spectra. */
  private mags: Float32Array[] = [];
  private specs: Float32Array[] = [];
  private framesBase = 0;
  private nextFrame = 0;
  /** First frame without a mask yet. */
  private masked = 0;
  private readonly pending: Float32Array;
  private readonly frameOut = new Float32Array(NFFT);
  private readonly scratch = new Float32Array(2 * BINS);
  private finished = false;
  private startedOutput = false;

  constructor(
    private readonly model: SeparationModel,
    private readonly channels: number,
    options: StreamingSeparatorOptions = {},
  ) {
    if (!Number.isInteger(channels) || channels < 1) throw new Error(`channels must be a positive integer, got ${channels}`);
    this.chunkFrames = Math.max(1, Math.floor(options.chunkFrames ?? 500));
    this.buf = new Float32Array(NFFT * 8 * channels);
    this.bufLen = HOP * channels; // the zero padding before sample 0 (center=True)
    this.pending = new Float32Array(HOP * channels);
  }

  /** Feeds interleaved samples; returns the speech samples that became final (possibly none). */
  async push(samples: Float32Array): Promise<Float32Array> {
    if (this.finished) throw new Error('push() after finish()');
    if (samples.length % this.channels !== 0) throw new Error('push(): samples must hold whole frames of all channels');
    this.append(samples);
    this.samplesIn += samples.length / this.channels;
    this.computeFrames();
    const out: Float32Array[] = [];
    while (this.nextFrame - this.masked >= this.chunkFrames + MODEL_CONTEXT) {
      out.push(await this.runChunk(this.masked + this.chunkFrames));
    }
    return concatSamples(out);
  }

  /** Ends the input; returns the rest of the speech estimate (total length = samples pushed). */
  async finish(): Promise<Float32Array> {
    if (this.finished) throw new Error('finish() called twice');
    this.finished = true;
    const total = frameCount(this.samplesIn);
    const needed = (total - 1) * HOP + HOP; // end (exclusive) of the last frame's samples
    const have = this.bufStart + this.bufLen / this.channels;
    if (needed > have) this.append(new Float32Array((needed - have) * this.channels));
    this.computeFrames(total);
    const out: Float32Array[] = [];
    while (this.masked < total) out.push(await this.runChunk(Math.min(total, this.masked + this.chunkFrames), total));
    const tail = this.samplesIn - (total - 1) * HOP; // samples of the last hop that exist in the input
    // Samples past the last frame's centre have only that frame's window: normalise by its squared window (as
    // torch.istft does), so an all-pass mask reconstructs the input exactly there too.
    const last = this.pending.slice(0, tail * this.channels);
    for (let i = 0; i < tail; i++) {
      const w2 = WINDOW[HOP + i] * WINDOW[HOP + i];
      for (let c = 0; c < this.channels; c++) last[i * this.channels + c] /= w2;
    }
    out.push(last);
    return concatSamples(out);
  }

  private append(samples: Float32Array): void {
    if (this.bufLen + samples.length > this.buf.length) {
      const next = new Float32Array(Math.max(this.buf.length * 2, this.bufLen + samples.length));
      next.set(this.buf.subarray(0, this.bufLen));
      this.buf = next;
    }
    this.buf.set(samples, this.bufLen);
    this.bufLen += samples.length;
  }

  private computeFrames(limit = Infinity): void {
    const ch = this.channels;
    while (this.nextFrame < limit) {
      const start = this.nextFrame * HOP - HOP; // absolute index of the frame's first sample
      if (start + NFFT > this.bufStart + this.bufLen / ch) break;
      const spec = new Float32Array(2 * BINS * ch);
      const mag = new Float32Array(BINS);
      const offset = start - this.bufStart;
      for (let c = 0; c < ch; c++) {
        this.transform.analyze(this.buf, offset, ch, c, this.scratch);
        spec.set(this.scratch, c * 2 * BINS);
      }
      for (let k = 0; k < BINS; k++) {
        let re = 0;
        let im = 0;
        for (let c = 0; c < ch; c++) {
          re += spec[c * 2 * BINS + 2 * k];
          im += spec[c * 2 * BINS + 2 * k + 1];
        }
        mag[k] = Math.hypot(re, im) / ch;
      }
      this.mags.push(mag);
      this.specs.push(spec);
      this.nextFrame++;
    }
    // Keep only the samples the next frame needs.
    const keepFrom = this.nextFrame * HOP - HOP;
    const drop = (keepFrom - this.bufStart) * ch;
    if (drop > 0 && drop >= this.buf.length / 2) {
      this.buf.copyWithin(0, drop, this.bufLen);
      this.bufLen -= drop;
      this.bufStart = keepFrom;
    }
  }

  /** Masks frames `masked .. end` (context from the stored frames) and returns the samples they complete. */
  private async runChunk(end: number, total = Infinity): Promise<Float32Array> {
    const from = Math.max(0, this.masked - MODEL_CONTEXT);
    const to = Math.min(total, end + MODEL_CONTEXT, this.nextFrame);
    const frames = to - from;
    const input = new Float32Array(frames * BINS);
    for (let t = from; t < to; t++) input.set(this.mags[t - this.framesBase], (t - from) * BINS);
    const mask = await this.model.mask(input, frames);
    const ch = this.channels;
    const out = new Float32Array((end - this.masked) * HOP * ch);
    let o = 0;
    for (let t = this.masked; t < end; t++) {
      const spec = this.specs[t - this.framesBase];
      const m = mask.subarray((t - from) * BINS, (t - from + 1) * BINS);
      for (let c = 0; c < ch; c++) {
        for (let k = 0; k < BINS; k++) {
          this.scratch[2 * k] = spec[c * 2 * BINS + 2 * k] * m[k];
          this.scratch[2 * k + 1] = spec[c * 2 * BINS + 2 * k + 1] * m[k];
        }
        this.transform.synthesize(this.scratch, this.frameOut);
        // Samples [t*HOP - HOP, t*HOP) are now complete: pending + first half; the second half becomes pending.
        for (let i = 0; i < HOP; i++) {
          out[o + i * ch + c] = this.pending[i * ch + c] + this.frameOut[i];
          this.pending[i * ch + c] = this.frameOut[HOP + i];
        }
      }
      o += HOP * ch;
    }
    this.masked = end;
    // Frames before the next chunk's left context are no longer needed.
    const keep = Math.max(0, this.masked - MODEL_CONTEXT);
    if (keep > this.framesBase) {
      this.mags.splice(0, keep - this.framesBase);
      this.specs.splice(0, keep - this.framesBase);
      this.framesBase = keep;
    }
    // Frame 0's first half lies before sample 0 (padding): drop it.
    if (this.startedOutput) return out;
    this.startedOutput = true;
    return out.subarray(HOP * ch);
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
