/**
 * The f32 → 16-bit PCM conversion of wav-writer.ts in WebAssembly with 128-bit SIMD (source `wasm/pcm16.ts`): the
 * same values for finite samples, eight a step instead of one (~2.7 ns a sample in TypeScript). A module reads and
 * writes its own memory only: a {@link Pcm16Conversion} owns a memory the floats are copied into and the 16-bit
 * samples are converted into, grown to the largest piece it was given.
 */
import { align16, instantiate, KernelPool, reserve, wasmKernel, type WasmMemory } from '../wasm-kernel.js';

interface Pcm16Exports {
  convert(src: number, dst: number, count: number): void;
}

/**
 * Conversions handed back ({@link Pcm16Conversion.release}) for the next writer on this thread, at most four: two
 * writers a separation job would make two new memories a job.
 */
const pool = new KernelPool<Pcm16Conversion>(4);

/** One writer's conversion memory (two writers on one thread each need their own: see {@link convert}). */
export class Pcm16Conversion {
  private constructor(
    private readonly memory: WasmMemory,
    private readonly exports: Pcm16Exports,
  ) {}

  /**
   * A conversion (one handed back, if any), or none when the module cannot be had here (see wasmKernel) or its memory
   * cannot.
   */
  static create(): Pcm16Conversion | undefined {
    const pooled = pool.take();
    if (pooled) return pooled;
    const module = wasmKernel('pcm16');
    if (!module) return undefined;
    try {
      const { memory, exports } = instantiate<Pcm16Exports>(module);
      return new Pcm16Conversion(memory, exports);
    } catch {
      return undefined;
    }
  }

  /**
   * `floats` as 16-bit samples (see wav-writer.ts), in this conversion's memory: valid until its next call, so a caller
   * that writes them out waits for the write first.
   */
  convert(floats: Float32Array): Uint8Array {
    const count = floats.length;
    // The floats, then the samples, each from a 16-byte boundary.
    const dst = align16(4 * count);
    reserve(this.memory, dst + align16(2 * count));
    const { buffer } = this.memory;
    new Float32Array(buffer, 0, count).set(floats);
    this.exports.convert(0, dst, count);
    return new Uint8Array(buffer, dst, 2 * count);
  }

  /** Hands this conversion back for a later {@link create} on this thread; the caller no longer uses it or its views. */
  release(): void {
    pool.give(this);
  }
}
