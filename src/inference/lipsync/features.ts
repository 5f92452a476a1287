/**
 * Log-mel features for the viseme model, exactly as defined in training/lipsync/FEATURES.md
 * (the numpy twin is training/lipsync/features.py): 16 kHz mono, 25 ms periodic-Hann frames every
 * 10 ms (frame t covers samples [t*160-120, t*160+280), zeros outside), 512-point FFT power
 * spectrum, 40 HTK-mel triangles from 20 to 7600 Hz, ln(E + 1e-6). No normalisation (the model
 * holds it). T = ceil(N / 160) frames.
 */
import FFT from 'fft.js';

export const SAMPLE_RATE = 16000;
export const HOP = 160;
export const WIN = 400;
/** Frame t starts at sample t*HOP - LEFT, so its centre is the middle of its 10 ms hop. */
export const LEFT = 120;
export const NFFT = 512;
export const N_MELS = 40;
export const FRAMES_PER_SECOND = SAMPLE_RATE / HOP;
const F_MIN = 20;
const F_MAX = 7600;
const LOG_FLOOR = 1e-6;

const hzToMel = (f: number): number => 2595 * Math.log10(1 + f / 700);
const melToHz = (m: number): number => 700 * (10 ** (m / 2595) - 1);

interface Triangle {
  firstBin: number;
  weights: Float64Array;
}

function buildFilterbank(): Triangle[] {
  const lo = hzToMel(F_MIN);
  const hi = hzToMel(F_MAX);
  const edges = Array.from({ length: N_MELS + 2 }, (_, i) => melToHz(lo + ((hi - lo) * i) / (N_MELS + 1)));
  const bins = NFFT / 2 + 1;
  const bank: Triangle[] = [];
  for (let m = 0; m < N_MELS; m++) {
    const [a, c, b] = [edges[m], edges[m + 1], edges[m + 2]];
    const w: number[] = [];
    let first = -1;
    for (let k = 0; k < bins; k++) {
      const f = (k * SAMPLE_RATE) / NFFT;
      const v = Math.max(0, Math.min((f - a) / (c - a), (b - f) / (b - c)));
      if (v > 0) {
        if (first < 0) first = k;
        w[k - first] = v;
      } else if (first >= 0) break;
    }
    bank.push({ firstBin: Math.max(first, 0), weights: Float64Array.from(w) });
  }
  return bank;
}

const WINDOW = Float64Array.from({ length: WIN }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / WIN));
const FILTERBANK = buildFilterbank();

/** Number of feature frames for `samples` samples: ceil(samples / 160). */
export function numFrames(samples: number): number {
  return Math.ceil(samples / HOP);
}

/**
 * Streaming extractor: push 16 kHz samples in pieces of any size, get frames as soon as their
 * 25 ms window is complete; `finish()` emits the rest (zero padded). Holds only ~400 samples.
 */
export class LogMelExtractor {
  private readonly fft = new FFT(NFFT);
  private readonly frameBuf = new Float64Array(NFFT);
  private readonly spec: number[] = this.fft.createComplexArray();
  /** Samples from absolute index `bufStart` on (the start of the next frame, possibly negative). */
  private buf = new Float64Array(1024);
  private bufLen = 0;
  private bufStart = -LEFT;
  private total = 0;
  private nextFrame = 0;
  private readonly chunks: Float32Array[] = [];
  private finished = false;

  constructor() {
    this.bufLen = LEFT; // the zeros before sample 0
  }

  /** Appends samples; returns the frames completed by them (rows of 40, concatenated). */
  push(samples: ArrayLike<number>): Float32Array {
    if (this.finished) throw new Error('LogMelExtractor: push after finish');
    this.append(samples);
    this.total += samples.length;
    const out: number[] = [];
    while (this.nextFrame * HOP - LEFT + WIN <= this.total) this.emit(out);
    this.compact();
    return this.keep(out);
  }

  /** Emits the frames up to ceil(total / 160), zero padding past the end. */
  finish(): Float32Array {
    if (this.finished) return new Float32Array(0);
    this.finished = true;
    const out: number[] = [];
    const frames = numFrames(this.total);
    while (this.nextFrame < frames) this.emit(out);
    return this.keep(out);
  }

  /** All frames emitted so far, `[frames * 40]` row-major. */
  features(): Float32Array {
    const n = this.chunks.reduce((s, c) => s + c.length, 0);
    const all = new Float32Array(n);
    let o = 0;
    for (const c of this.chunks) {
      all.set(c, o);
      o += c.length;
    }
    return all;
  }

  get samplesSeen(): number {
    return this.total;
  }

  private keep(values: number[]): Float32Array {
    const f = Float32Array.from(values);
    if (f.length) this.chunks.push(f);
    return f;
  }

  private append(samples: ArrayLike<number>): void {
    if (this.bufLen + samples.length > this.buf.length) {
      const bigger = new Float64Array(Math.max(this.buf.length * 2, this.bufLen + samples.length));
      bigger.set(this.buf.subarray(0, this.bufLen));
      this.buf = bigger;
    }
    for (let i = 0; i < samples.length; i++) this.buf[this.bufLen + i] = samples[i];
    this.bufLen += samples.length;
  }

  private emit(out: number[]): void {
    const start = this.nextFrame * HOP - LEFT; // absolute index of the frame's first sample
    const offset = start - this.bufStart;
    for (let n = 0; n < WIN; n++) {
      const i = offset + n;
      this.frameBuf[n] = i < this.bufLen ? this.buf[i] * WINDOW[n] : 0;
    }
    this.frameBuf.fill(0, WIN);
    this.fft.realTransform(this.spec, this.frameBuf);
    for (const tri of FILTERBANK) {
      let e = 0;
      for (let j = 0; j < tri.weights.length; j++) {
        const k = tri.firstBin + j;
        const re = this.spec[2 * k];
        const im = this.spec[2 * k + 1];
        e += tri.weights[j] * (re * re + im * im);
      }
      out.push(Math.log(e + LOG_FLOOR));
    }
    this.nextFrame++;
  }

  /** Drops the samples no later frame needs. */
  private compact(): void {
    const drop = Math.min(this.nextFrame * HOP - LEFT - this.bufStart, this.bufLen);
    if (drop > 0) {
      this.buf.copyWithin(0, drop, this.bufLen);
      this.bufLen -= drop;
      this.bufStart += drop;
    }
  }
}

/** Features of a whole signal: `[numFrames(samples.length) * 40]`, row-major float32. */
export function logMel(samples: ArrayLike<number>): Float32Array {
  const x = new LogMelExtractor();
  x.push(samples);
  x.finish();
  return x.features();
}
