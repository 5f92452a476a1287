/**
 * Full-band speech estimation at the input's own sample rate from the 16 kHz model: the model's masks
 * ({@link MaskStream}, fed a 16 kHz copy of the input) are mapped onto an STFT at the input's rate
 * ({@link StftStream}, window of about 32 ms or less: 2^⌊log2(0.032·rate)⌋ samples, hop half of it):
 *
 * - in time, linearly between the two 16 kHz frames around the frame's centre;
 * - in frequency, below 7.5 kHz linearly between the two 16 kHz bins around the bin's frequency; above 8 kHz the
 *   frame's upper-band gain (the square root of the model's mask over 4–8 kHz weighted by the mixture's power, see
 *   {@link upperBandGain}); between 7.5 and 8 kHz a linear crossfade of the two (at rates up to 16 kHz the model's
 *   mask is used as is: there, a 16 kHz input gives exactly the model's own STFT masking).
 *
 * The speech estimate is the masked iSTFT at the input's rate and the ambience is `input − speech`, sample by
 * sample, so the stems sum back to the input exactly and both carry the whole band. Push the two streams in any
 * order and pieces; {@link needsLow} says when the native side waits for masks, so a caller pulling both decodes
 * keeps memory bounded (one model chunk, plus the native frames that wait for it).
 */
import type { MaskModel } from './model.js';
import { MaskStream, type MaskStreamOptions } from './mask-stream.js';
import { BINS, HOP, MODEL_RATE, NFFT } from './stft.js';
import { StftStream } from './stft-stream.js';

/** Stems completed so far: speech estimate and ambience (= input − speech), interleaved, same length. */
export interface Stems {
  speech: Float32Array;
  ambience: Float32Array;
}

const CROSSFADE_FROM_HZ = 7500;
const UPPER_FROM_HZ = 8000;

/** STFT size at `sampleRate`: the largest power of two not longer than 32 ms (512 at 16 kHz, 1024 at 44.1/48 kHz). */
export function fullBandSize(sampleRate: number): number {
  return 2 ** Math.max(4, Math.floor(Math.log2(sampleRate * 0.032) + 1e-9));
}

export class FullBandSeparator {
  private readonly masks: MaskStream;
  private readonly native: StftStream;
  /** Per native bin: lower 16 kHz bin, its interpolation weight, and the upper-band gain's share. */
  private readonly bin0: Int32Array;
  private readonly binFrac: Float32Array;
  private readonly upperShare: Float32Array;
  /** 16 kHz frames per native frame. */
  private readonly frameStep: number;
  private readonly row: Float32Array;

  constructor(
    model: MaskModel,
    private readonly channels: number,
    readonly sampleRate: number,
    options: MaskStreamOptions = {},
  ) {
    if (!(sampleRate > 0)) throw new Error(`sampleRate must be positive, got ${sampleRate}`);
    this.masks = new MaskStream(model, channels, options);
    const size = fullBandSize(sampleRate);
    this.native = new StftStream(channels, size);
    const bins = this.native.bins;
    this.bin0 = new Int32Array(bins);
    this.binFrac = new Float32Array(bins);
    this.upperShare = new Float32Array(bins);
    for (let j = 0; j < bins; j++) {
      const hz = (j * sampleRate) / size;
      const k = Math.min((hz * NFFT) / MODEL_RATE, BINS - 1);
      this.bin0[j] = Math.min(Math.floor(k), BINS - 2);
      this.binFrac[j] = k - this.bin0[j];
      if (sampleRate > MODEL_RATE) {
        this.upperShare[j] = Math.min(1, Math.max(0, (hz - CROSSFADE_FROM_HZ) / (UPPER_FROM_HZ - CROSSFADE_FROM_HZ)));
      }
    }
    this.frameStep = (this.native.hop * MODEL_RATE) / (HOP * sampleRate);
    this.row = new Float32Array(bins);
  }

  /** Feeds interleaved samples of the 16 kHz copy (runs the model on every chunk they complete). */
  pushLow(samples: Float32Array): Promise<void> {
    return this.masks.push(samples);
  }

  /** Ends the 16 kHz copy. */
  finishLow(): Promise<void> {
    return this.masks.finish();
  }

  /** Feeds interleaved samples at the input's rate. */
  pushNative(samples: Float32Array): void {
    this.native.push(samples);
  }

  /** Ends the input at its own rate. */
  finishNative(): void {
    this.native.end();
  }

  /** Whether analysed native frames wait for masks the 16 kHz side has not produced yet. */
  needsLow(): boolean {
    const next = this.native.synthesised;
    return next < this.native.analysed && !this.ready(next);
  }

  /** The stems of every native frame whose masks are known (after both ends: the rest of the input). */
  take(): Stems {
    let end = this.native.synthesised;
    while (end < this.native.analysed && this.ready(end)) end++;
    const { estimate, input } = this.native.synthesise(end, (t) => this.maskAt(t));
    // `input` is a copy of the stream's samples, made for this call: it becomes the ambience in place.
    const ambience = input;
    for (let i = 0; i < ambience.length; i++) ambience[i] -= estimate[i];
    const first = Math.floor(this.native.synthesised * this.frameStep) - 1;
    this.masks.release(first);
    return { speech: estimate, ambience };
  }

  /** The 16 kHz frames native frame `t` interpolates between. */
  private lowFrames(t: number): [number, number, number] {
    const pos = t * this.frameStep;
    const last = (this.masks.frames ?? Infinity) - 1;
    const t0 = Math.min(Math.floor(pos), last);
    const t1 = Math.min(t0 + 1, last);
    return [t0, t1, t0 === t1 ? 0 : pos - t0];
  }

  private ready(t: number): boolean {
    return this.lowFrames(t)[1] < this.masks.available;
  }

  private maskAt(t: number): Float32Array {
    const [t0, t1, a] = this.lowFrames(t);
    const m0 = this.masks.mask(t0);
    const m1 = this.masks.mask(t1);
    const upper = (1 - a) * this.masks.upper(t0) + a * this.masks.upper(t1);
    const row = this.row;
    for (let j = 0; j < row.length; j++) {
      const k = this.bin0[j];
      const f = this.binFrac[j];
      const low = (1 - a) * ((1 - f) * m0[k] + f * m0[k + 1]) + a * ((1 - f) * m1[k] + f * m1[k + 1]);
      const u = this.upperShare[j];
      row[j] = u === 0 ? low : (1 - u) * low + u * upper;
    }
    return row;
  }
}
