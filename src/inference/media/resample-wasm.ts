/**
 * The inner loop of resample.ts's {@link Resampler} in WebAssembly with 128-bit SIMD (source `wasm/resample.ts`): the
 * same samples bit for bit (the same products, summed in the same order), two taps an instruction instead of one. A
 * module reads and writes its own memory only: a {@link ResampleKernel} owns a memory that holds the resampler's
 * filters, its input (the resampler appends to it and drops from it in place) and each call's output.
 */
import { align16, instantiate, KernelPool, reserve, wasmKernel, type WasmMemory } from '../wasm-kernel.js';

interface ResampleExports {
  run(filters: number, buffer: number, out: number, count: number, first: number, up: number, down: number, taps: number, bufferStart: number): void;
}

/** Kernels handed back ({@link ResampleKernel.release}) for the next resampler on this thread, at most four. */
const pool = new KernelPool<ResampleKernel>(4);

/** One resampler's memory: its filters, then its input, then the output of the last {@link run}. */
export class ResampleKernel {
  /** Where the input starts (after the filters, 16-byte aligned), and how many samples it holds room for. */
  private inputAt = 0;
  private capacity = 0;
  private view = new Float64Array(0);

  private constructor(
    private readonly memory: WasmMemory,
    private readonly exports: ResampleExports,
  ) {}

  /**
   * A kernel (one handed back, if any) holding `filters` and room for `capacity` input samples, or none when the
   * module cannot be had here (see wasmKernel) or its memory cannot.
   */
  static create(filters: Float64Array, capacity: number): ResampleKernel | undefined {
    let kernel = pool.take();
    if (!kernel) {
      const module = wasmKernel('resample');
      if (!module) return undefined;
      try {
        const { memory, exports } = instantiate<ResampleExports>(module);
        kernel = new ResampleKernel(memory, exports);
      } catch {
        return undefined;
      }
    }
    try {
      kernel.inputAt = align16(8 * filters.length);
      kernel.resize(capacity);
      new Float64Array(kernel.memory.buffer, 0, filters.length).set(filters);
      return kernel;
    } catch {
      return undefined;
    }
  }

  /** The input: `capacity` samples, a view that stays valid until this kernel's memory grows ({@link resize}, {@link run}). */
  get input(): Float64Array {
    if (this.view.buffer !== this.memory.buffer) this.view = new Float64Array(this.memory.buffer, this.inputAt, this.capacity);
    return this.view;
  }

  /** Room for `capacity` input samples; those held are kept. Returns the new {@link input}. */
  resize(capacity: number): Float64Array {
    reserve(this.memory, this.inputAt + 8 * capacity);
    this.capacity = capacity;
    this.view = new Float64Array(this.memory.buffer, this.inputAt, capacity);
    return this.view;
  }

  /**
   * Outputs `first` … `first + count − 1` of the ratio `up` / `down` from the input, whose first sample is sample
   * `inputStart` of the stream, with filters of `taps` taps (see resample.ts's emit): a new array.
   */
  run(count: number, first: number, up: number, down: number, taps: number, inputStart: number): Float32Array {
    const out = align16(this.inputAt + 8 * this.capacity);
    reserve(this.memory, out + 4 * count);
    this.exports.run(0, this.inputAt, out, count, first, up, down, taps, inputStart);
    return new Float32Array(this.memory.buffer, out, count).slice();
  }

  /** Hands this kernel back for a later {@link create} on this thread; the caller no longer uses it or its views. */
  release(): void {
    pool.give(this);
  }
}
