/**
 * A streaming STFT with masked overlap-add synthesis, for interleaved multi-channel audio: push samples in pieces of
 * any size, frames are analysed as soon as their samples are in, and frames are synthesised (in order, with a mask
 * per frame applied to every channel) when the caller has their masks. `center=True` framing with a periodic
 * sqrt-Hann window at 50 % overlap (see stft.ts): frame `t` covers samples `[t*hop - hop, t*hop + hop)`, and
 * synthesising it completes samples `[t*hop - hop, t*hop)`. An all-pass mask gives the input back exactly (within
 * float rounding). Memory holds only the frames not yet synthesised and the samples they span.
 */
import { FrameTransform, concatSamples, frameCount } from './stft.js';

/** Samples completed by a synthesis: the masked estimate and the input itself, both interleaved, same length. */
export interface SynthesisedSamples {
  estimate: Float32Array;
  input: Float32Array;
}

/** Spectra a stream keeps for reuse: more than the frames a synthesis or skip frees at once in the engines' chunks. */
const SPARE_SPECTRA = 256;

export class StftStream {
  readonly hop: number;
  readonly bins: number;
  private readonly transform: FrameTransform;
  /** Interleaved input samples from absolute sample index `bufStart` on. */
  private buf: Float32Array;
  private bufLen: number;
  private bufStart: number;
  private samplesIn = 0;
  /** Per-channel spectra of frames `framesBase ..` (`2 * bins` values per channel, channel after channel). */
  private specs: Float32Array[] = [];
  private framesBase = 0;
  private computed = 0;
  private done = 0;
  private readonly pending: Float32Array;
  private readonly frameOut: Float32Array;
  private readonly frameOutB: Float32Array;
  /** Spectra of frames already synthesised or skipped, for the next frames analysed (at most {@link SPARE_SPECTRA}). */
  private readonly spare: Float32Array[] = [];
  private total?: number;
  private tailDone = false;

  constructor(
    readonly channels: number,
    readonly size: number,
  ) {
    if (!Number.isInteger(channels) || channels < 1) throw new Error(`channels must be a positive integer, got ${channels}`);
    this.transform = new FrameTransform(size);
    this.hop = size / 2;
    this.bins = this.transform.bins;
    this.buf = new Float32Array(size * 8 * channels);
    this.bufLen = this.hop * channels; // the zero padding before sample 0 (center=True)
    this.bufStart = -this.hop;
    this.pending = new Float32Array(this.hop * channels);
    this.frameOut = new Float32Array(size);
    this.frameOutB = new Float32Array(size);
  }

  /** Frames analysed so far. */
  get analysed(): number {
    return this.computed;
  }

  /** Frames synthesised (or skipped) so far. */
  get synthesised(): number {
    return this.done;
  }

  /** All frames of the input, once {@link end} was called. */
  get frames(): number | undefined {
    return this.total;
  }

  /** Feeds interleaved samples and analyses the frames they complete. */
  push(samples: Float32Array): void {
    if (this.total !== undefined) throw new Error('push() after end()');
    if (samples.length % this.channels !== 0) throw new Error('push(): samples must hold whole frames of all channels');
    this.append(samples);
    this.samplesIn += samples.length / this.channels;
    this.analyse(Infinity);
  }

  /** Ends the input (zero padding past its end) and analyses the last frames; returns the number of frames. */
  end(): number {
    if (this.total !== undefined) throw new Error('end() called twice');
    const total = frameCount(this.samplesIn, this.hop);
    this.total = total;
    const needed = total * this.hop; // end (exclusive) of the last frame's samples
    const have = this.bufStart + this.bufLen / this.channels;
    if (needed > have) this.append(new Float32Array((needed - have) * this.channels));
    this.analyse(total);
    return total;
  }

  /**
   * Spectrum of analysed frame `t` (not yet synthesised): channel `c`'s bin `k` at `[c*2*bins + 2k]` (re, im). Valid
   * until the frame is synthesised or skipped: its memory then holds a later frame's.
   */
  spectrum(t: number): Float32Array {
    return this.specs[t - this.framesBase];
  }

  /**
   * Synthesises frames up to `end` (exclusive) with `mask(t)` (`bins` gains) and returns the samples they complete
   * (the padding before sample 0 left out). After the last frame, the samples past its centre come too.
   */
  synthesise(end: number, mask: (t: number) => Float32Array): SynthesisedSamples {
    const ch = this.channels;
    const { hop, bins } = this;
    const first = this.done;
    const estimate = new Float32Array((end - first) * hop * ch);
    let o = 0;
    for (let t = first; t < end; t++) {
      const spec = this.spectrum(t);
      const m = mask(t);
      // Channels two at a time: one inverse FFT for a pair (see FrameTransform.synthesizePair), the mask applied there.
      for (let c = 0; c < ch; c += 2) {
        const a = spec.subarray(2 * bins * c, 2 * bins * (c + 1));
        if (c + 1 < ch) {
          this.transform.synthesizePair(a, spec.subarray(2 * bins * (c + 1), 2 * bins * (c + 2)), this.frameOut, this.frameOutB, m);
          this.overlapAdd(this.frameOutB, estimate, o, c + 1);
        } else {
          this.transform.synthesize(a, this.frameOut, m);
        }
        this.overlapAdd(this.frameOut, estimate, o, c);
      }
      o += hop * ch;
    }
    const out = { estimate, input: this.inputSamples(first * hop - hop, end * hop - hop) };
    this.skip(end);
    // Frame 0's first half lies before sample 0 (padding): drop it.
    if (first === 0 && end > 0) {
      out.estimate = out.estimate.subarray(hop * ch);
      out.input = out.input.subarray(hop * ch);
    }
    if (this.done === this.total && !this.tailDone) {
      this.tailDone = true;
      return this.withTail(out);
    }
    return out;
  }

  /** Adds a synthesised frame of channel `c` to the pending half: its first half completes samples at `o`. */
  private overlapAdd(frame: Float32Array, estimate: Float32Array, o: number, c: number): void {
    const ch = this.channels;
    const { hop, pending } = this;
    for (let i = 0; i < hop; i++) {
      estimate[o + i * ch + c] = pending[i * ch + c] + frame[i];
      pending[i * ch + c] = frame[hop + i];
    }
  }

  /** Marks frames before `end` as used without synthesising them (an analysis-only stream frees them so). */
  skip(end: number): void {
    this.done = Math.max(this.done, end);
    if (this.done > this.framesBase) {
      const used = this.specs.splice(0, this.done - this.framesBase);
      this.spare.push(...used.slice(0, SPARE_SPECTRA - this.spare.length));
      this.framesBase = this.done;
    }
    this.trim();
  }

  /** Samples past the last frame's centre: normalised by that frame's squared window alone (as torch.istft does). */
  private withTail(out: SynthesisedSamples): SynthesisedSamples {
    const ch = this.channels;
    const last = (this.total ?? 0) - 1;
    const tail = this.samplesIn - last * this.hop;
    const estimate = this.pending.slice(0, tail * ch);
    const w = this.transform.window;
    for (let i = 0; i < tail; i++) {
      const w2 = w[this.hop + i] * w[this.hop + i];
      for (let c = 0; c < ch; c++) estimate[i * ch + c] /= w2;
    }
    const input = this.inputSamples(last * this.hop, last * this.hop + tail);
    return { estimate: concatSamples([out.estimate, estimate]), input: concatSamples([out.input, input]) };
  }

  private inputSamples(from: number, to: number): Float32Array {
    const ch = this.channels;
    return this.buf.slice((from - this.bufStart) * ch, (to - this.bufStart) * ch);
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

  private analyse(limit: number): void {
    const ch = this.channels;
    const { hop, bins } = this;
    while (this.computed < limit) {
      const start = this.computed * hop - hop; // absolute index of the frame's first sample
      if (start + this.size > this.bufStart + this.bufLen / ch) break;
      const spec = this.spare.pop() ?? new Float32Array(2 * bins * ch);
      for (let c = 0; c < ch; c++) this.transform.analyze(this.buf, start - this.bufStart, ch, c, spec.subarray(c * 2 * bins, (c + 1) * 2 * bins));
      this.specs.push(spec);
      this.computed++;
    }
    this.trim();
  }

  /** Drops the samples that neither the next frame to analyse nor the next to synthesise needs. */
  private trim(): void {
    const ch = this.channels;
    const keepFrom = Math.min(this.computed, this.done) * this.hop - this.hop;
    const drop = (keepFrom - this.bufStart) * ch;
    if (drop > 0 && drop >= this.buf.length / 2) {
      this.buf.copyWithin(0, drop, this.bufLen);
      this.bufLen -= drop;
      this.bufStart = keepFrom;
    }
  }
}
