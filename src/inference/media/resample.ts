/**
 * A streaming band-limited resampler for mono float samples, between rates whose ratio reduces to at most
 * {@link MAX_PHASES} phases (every common rate to 16 kHz does: 44.1 kHz is 160 phases, 22.05 kHz 320, 48 kHz one).
 * It builds the filter ffmpeg's swresample builds by default (a Kaiser-windowed sinc, β = 9, 32 taps at the lower
 * rate, cut off at 97 % of the output's Nyquist frequency when downsampling and at the input's when upsampling, one
 * filter per phase of the exact rational ratio, all scaled by the sum of the first) and aligns it as swresample does
 * (output sample `n` lies at input time `n · in / out`), so that its samples are ffmpeg's up to float rounding.
 * Its inner loop runs in WebAssembly where the package's module loads (resample-wasm.ts: the same samples, bit for bit).
 */

import { ResampleKernel } from './resample-wasm.js';

/** The most phases (the output rate divided by the two rates' greatest common divisor) a resampler takes. */
export const MAX_PHASES = 1024;
const FILTER_SIZE = 32;
const CUTOFF = 0.97;
const KAISER_BETA = 9;

/** Whether {@link Resampler} takes `inRate` → `outRate`. */
export function canResample(inRate: number, outRate: number): boolean {
  return Number.isInteger(inRate) && Number.isInteger(outRate) && inRate > 0 && outRate > 0 && outRate / gcd(inRate, outRate) <= MAX_PHASES;
}

/**
 * Resamples a stream pushed in pieces of any size: {@link push} returns the output samples the input so far
 * determines, {@link finish} the rest (the input treated as followed by silence), `ceil(inputs · out / in)` in all.
 * Holds the filter (phases × taps) and about one filter's length of input.
 */
export class Resampler {
  /** Output samples per `down` input samples (the ratio in lowest terms). */
  private readonly up: number;
  private readonly down: number;
  private readonly taps: number;
  /**
   * `up` filters of `taps` coefficients, phase after phase: float32 values (as swresample's float filters), held as
   * float64 so that the inner loop multiplies without converting each one (the products and sums are the same).
   */
  private readonly filters: Float64Array;
  /**
   * Input samples (float32 values, held as float64 as the filters are) from absolute index `bufferStart` on: in the
   * kernel's memory when there is one (see {@link input}), and then none here.
   */
  private buffer: Float64Array;
  /** The compiled inner loop (resample-wasm.ts); none where the module cannot be had: then the loop below runs. */
  private kernel: ResampleKernel | undefined;
  private bufferStart: number;
  private bufferLength = 0;
  private inputs = 0;
  private nextOutput = 0;
  private finished = false;

  /** `wasm: false` runs the inner loop in TypeScript even where the WebAssembly kernel loads (tests compare the two). */
  constructor(
    readonly inRate: number,
    readonly outRate: number,
    wasm = true,
  ) {
    if (!canResample(inRate, outRate)) throw new RangeError(`cannot resample ${inRate} Hz to ${outRate} Hz`);
    const divisor = gcd(inRate, outRate);
    this.up = outRate / divisor;
    this.down = inRate / divisor;
    const factor = Math.min((outRate * CUTOFF) / inRate, 1);
    const length = Math.ceil(FILTER_SIZE / factor);
    this.taps = length + (length & 1);
    this.filters = filtersFor(this.up, this.taps, factor);
    this.kernel = wasm ? ResampleKernel.create(this.filters, INITIAL_CAPACITY) : undefined;
    this.buffer = new Float64Array(this.kernel ? 0 : INITIAL_CAPACITY);
    // The first output's window starts `taps / 2 − 1` samples before the input: silence.
    this.bufferStart = 1 - this.taps / 2;
    this.bufferLength = this.taps / 2 - 1;
    this.input.fill(0, 0, this.bufferLength);
  }

  /** {@link buffer}, or the kernel's input (a view that its memory's growth replaces). */
  private get input(): Float64Array {
    return this.kernel ? this.kernel.input : this.buffer;
  }

  /** Appends input samples; returns the output samples now determined. */
  push(samples: Float32Array): Float32Array {
    if (this.finished) throw new Error('Resampler: push after finish');
    this.append(samples);
    this.inputs += samples.length;
    return this.emit(this.inputs);
  }

  /** The remaining output samples, up to `ceil(inputs · out / in)`. */
  finish(): Float32Array {
    if (this.finished) return new Float32Array(0);
    this.finished = true;
    this.append(new Float32Array(this.taps));
    const rest = this.emit(this.inputs + this.taps, Math.ceil((this.inputs * this.up) / this.down));
    this.kernel?.release();
    this.kernel = undefined;
    return rest;
  }

  private append(samples: Float32Array): void {
    const held = this.input;
    if (this.bufferLength + samples.length > held.length) {
      const capacity = Math.max(held.length * 2, this.bufferLength + samples.length);
      if (this.kernel) {
        this.kernel.resize(capacity);
      } else {
        const bigger = new Float64Array(capacity);
        bigger.set(held.subarray(0, this.bufferLength));
        this.buffer = bigger;
      }
    }
    this.input.set(samples, this.bufferLength);
    this.bufferLength += samples.length;
  }

  /** Output samples whose window lies within the first `available` input samples, at most up to `limit`. */
  private emit(available: number, limit = Infinity): Float32Array {
    const { up, down, taps, bufferStart } = this;
    const half = taps / 2;
    // Output n reads inputs floor(n·down/up) − half + 1 … floor(n·down/up) + half.
    const last = Math.min(limit, Math.ceil(((available - half) * up) / down));
    const count = Math.max(0, last - this.nextOutput);
    const out = this.kernel ? this.kernel.run(count, this.nextOutput, up, down, taps, bufferStart) : this.filter(count);
    this.nextOutput += count;
    // Drops the input no later output reads.
    const keepFrom = Math.floor((this.nextOutput * down) / up) - half + 1 - bufferStart;
    if (keepFrom > 0) {
      this.input.copyWithin(0, keepFrom, this.bufferLength);
      this.bufferLength -= keepFrom;
      this.bufferStart += keepFrom;
    }
    return out;
  }

  /** The next `count` outputs, computed here (without the kernel). */
  private filter(count: number): Float32Array {
    const { up, down, taps, filters, buffer, bufferStart } = this;
    const half = taps / 2;
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const n = this.nextOutput + i;
      const position = n * down;
      const base = Math.floor(position / up);
      const phase = position - base * up;
      const first = base - half + 1 - bufferStart;
      const filter = phase * taps;
      // Four running sums, so that each addition need not wait for the one before: about a quarter faster. The float64
      // sums are rounded to float32, where their order could only show for a sum within 1e-16 of a rounding boundary
      // (none in 1.5 million samples at five rates, against one sum in order).
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let k = 0;
      for (; k + 3 < taps; k += 4) {
        s0 += filters[filter + k]! * buffer[first + k]!;
        s1 += filters[filter + k + 1]! * buffer[first + k + 1]!;
        s2 += filters[filter + k + 2]! * buffer[first + k + 2]!;
        s3 += filters[filter + k + 3]! * buffer[first + k + 3]!;
      }
      for (; k < taps; k++) s0 += filters[filter + k]! * buffer[first + k]!;
      out[i] = s0 + s1 + (s2 + s3);
    }
    return out;
  }
}

/** Input samples a resampler holds room for at first (it grows to the largest piece it is pushed, plus a window). */
const INITIAL_CAPACITY = 4096;

/**
 * The filters built last, by phases, taps and cut-off: each job of the same rates reuses them (a few milliseconds
 * each). At most {@link KEPT_FILTERS} are kept (up to ~0.3 MB each), so inputs of ever new rates cannot grow it.
 */
const builtFilters = new Map<string, Float64Array>();
const KEPT_FILTERS = 8;

/** {@link buildFilters}, built once for each set of arguments while kept (never modified by their users). */
function filtersFor(up: number, taps: number, factor: number): Float64Array {
  const key = `${up} ${taps} ${factor}`;
  let filters = builtFilters.get(key);
  if (filters) {
    // Most recently used last: the first is the one to drop.
    builtFilters.delete(key);
  } else {
    filters = buildFilters(up, taps, factor);
    if (builtFilters.size >= KEPT_FILTERS) builtFilters.delete(builtFilters.keys().next().value!);
  }
  builtFilters.set(key, filters);
  return filters;
}

/**
 * The windowed-sinc filter of each phase `p` (the output lying `p / up` of an input sample after the input at the
 * window's centre), all divided by the sum of phase 0's (so a constant signal keeps its level at the inputs' instants).
 */
function buildFilters(up: number, taps: number, factor: number): Float64Array {
  const filters = new Float64Array(up * taps);
  const half = taps / 2;
  let norm = 0;
  for (let p = 0; p < up; p++) {
    for (let k = 0; k < taps; k++) {
      // Distance in input samples from the output's instant to input k of the window.
      const d = k - half + 1 - p / up;
      const x = Math.PI * factor * d;
      const sinc = x === 0 ? 1 : Math.sin(x) / x;
      const w = d / half;
      const value = sinc * besselI0(KAISER_BETA * Math.sqrt(Math.max(1 - w * w, 0)));
      filters[p * taps + k] = value;
      if (p === 0) norm += value;
    }
  }
  return Float64Array.from(filters, (value) => Math.fround(value / norm));
}

/** The modified Bessel function of the first kind, order 0 (its power series). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const quarter = (x * x) / 4;
  for (let k = 1; k < 64; k++) {
    term *= quarter / (k * k);
    sum += term;
    if (term < sum * 1e-16) break;
  }
  return sum;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
