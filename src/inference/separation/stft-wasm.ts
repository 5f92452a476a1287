/**
 * The frame transforms of stft.ts's {@link FrameTransform} in WebAssembly with 128-bit SIMD (source `wasm/stft.ts`):
 * the windowed FFT of one channel of a frame and the windowed inverse of two spectra at once, in f64 as fft.js computes
 * them (the same values within float rounding), about twice as fast. A kernel reads and writes its own memory
 * only: the frame's samples and spectra are copied in, the results copied out, within each call, so one kernel per
 * size serves every transform of that size on its thread ({@link StftKernel.forSize}).
 */
import { align16, instantiate, reserve, wasmKernel, type WasmMemory } from '../wasm-kernel.js';

interface StftExports {
  setup(n: number, tw: number, win: number, revN: number, revM: number, work: number): void;
  analyze(src: number, stride: number, channel: number, out: number): void;
  synthesizePair(specA: number, specB: number, mask: number, outA: number, outB: number): void;
}

/** Kernels of this thread by size; `null` where none can be had (see {@link StftKernel.forSize}). */
const kernels = new Map<number, StftKernel | null>();

/** Sizes a kernel computes: powers of two from 8 to 65 536 points. */
function kernelSize(size: number): boolean {
  return Number.isInteger(size) && size >= 8 && size <= 65_536 && (size & (size - 1)) === 0;
}

export class StftKernel {
  private readonly bins: number;
  private readonly specA: number;
  private readonly specB: number;
  private readonly mask: number;
  /** Whether the mask's place holds ones (the last synthesis had no mask). */
  private unmasked = false;
  private readonly outA: number;
  private readonly outB: number;
  /** Where a frame's samples are copied to (the memory grows to the widest frame given). */
  private readonly input: number;
  private buffer: ArrayBuffer;
  private f32!: Float32Array;

  private constructor(
    readonly size: number,
    window: Float32Array,
    private readonly memory: WasmMemory,
    private readonly exports: StftExports,
  ) {
    const n = size;
    this.bins = n / 2 + 1;
    // The layout of wasm/stft.ts, each part from a 16-byte boundary.
    const tw = 0;
    const win = tw + 16 * n;
    const revN = win + 8 * n;
    const revM = revN + 4 * n;
    const work = revM + align16(2 * n);
    this.specA = work + 16 * n;
    this.specB = this.specA + align16(8 * this.bins);
    this.mask = this.specB + align16(8 * this.bins);
    this.outA = this.mask + align16(4 * this.bins);
    this.outB = this.outA + 4 * n;
    this.input = this.outB + 4 * n;
    this.grow(this.input);
    this.buffer = memory.buffer;
    const f64 = new Float64Array(memory.buffer);
    for (let k = 0; k < n / 2; k++) {
      const angle = (-2 * Math.PI * k) / n;
      const re = Math.cos(angle);
      const im = Math.sin(angle);
      f64.set([re, re, -im, im], tw / 8 + 4 * k);
    }
    // The window's f32 values, as FrameTransform multiplies by them.
    f64.set(window, win / 8);
    const u32 = new Uint32Array(memory.buffer);
    const bitsN = Math.log2(n);
    for (let k = 0; k < n; k++) u32[revN / 4 + k] = reverse(k, bitsN);
    for (let k = 0; k < n / 2; k++) u32[revM / 4 + k] = reverse(k, bitsN - 1);
    exports.setup(n, tw, win, revN, revM, work);
    this.views();
  }

  /**
   * The kernel of this thread for transforms of `size` points with `window` (the periodic sqrt-Hann window of that
   * size: one kernel a size serves every transform of it), or none when the size is not a power of two from 8 to
   * 65 536 or the module or its memory cannot be had here (see wasmKernel): the caller then computes in TypeScript.
   */
  static forSize(size: number, window: Float32Array): StftKernel | undefined {
    let kernel = kernels.get(size);
    if (kernel === undefined) {
      kernel = null;
      const module = kernelSize(size) ? wasmKernel('stft') : null;
      if (module) {
        try {
          const { memory, exports } = instantiate<StftExports>(module);
          kernel = new StftKernel(size, window, memory, exports);
        } catch {
          kernel = null;
        }
      }
      kernels.set(size, kernel);
    }
    return kernel ?? undefined;
  }

  /** {@link FrameTransform.analyze}: the windowed FFT of channel `channel` of the frame at `offset` into `out`. */
  analyze(src: Float32Array, offset: number, stride: number, channel: number, out: Float32Array): void {
    const values = this.size * stride;
    this.grow(this.input + 4 * values);
    const from = offset * stride;
    this.f32.set(src.subarray(from, from + values), this.input / 4);
    this.exports.analyze(this.input, stride, channel, this.specA);
    out.set(this.f32.subarray(this.specA / 4, this.specA / 4 + 2 * this.bins));
  }

  /**
   * {@link FrameTransform.synthesizePair}: the windowed inverse FFTs of `specA` and `specB` (zeros if none), each times
   * `mask` if given, into `outA` and `outB` (if given).
   */
  synthesizePair(specA: Float32Array, specB: Float32Array | undefined, outA: Float32Array, outB: Float32Array | undefined, mask?: Float32Array): void {
    const { f32, bins, size } = this;
    f32.set(specA.subarray(0, 2 * bins), this.specA / 4);
    if (specB) f32.set(specB.subarray(0, 2 * bins), this.specB / 4);
    else f32.fill(0, this.specB / 4, this.specB / 4 + 2 * bins);
    if (mask) f32.set(mask.subarray(0, bins), this.mask / 4);
    else if (!this.unmasked) f32.fill(1, this.mask / 4, this.mask / 4 + bins);
    this.unmasked = !mask;
    this.exports.synthesizePair(this.specA, this.specB, this.mask, this.outA, this.outB);
    outA.set(f32.subarray(this.outA / 4, this.outA / 4 + size));
    outB?.set(f32.subarray(this.outB / 4, this.outB / 4 + size));
  }

  /** Grows the memory to at least `bytes`, and the views with it. */
  private grow(bytes: number): void {
    reserve(this.memory, bytes);
    if (this.memory.buffer !== this.buffer) this.views();
  }

  private views(): void {
    this.buffer = this.memory.buffer;
    this.f32 = new Float32Array(this.buffer);
  }
}

/** `k` with its `bits` lowest bits in reverse order. */
function reverse(k: number, bits: number): number {
  let r = 0;
  for (let b = 0; b < bits; b++) r |= ((k >> b) & 1) << (bits - 1 - b);
  return r;
}
