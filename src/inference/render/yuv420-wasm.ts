/**
 * The RGBA → yuv420p conversion of yuv420.ts ({@link rgbaToYuv420}) compiled to WebAssembly with 128-bit SIMD: the
 * same bytes, about three times faster (four pixels of two rows a step). Its source is `wasm/yuv420.ts`
 * (AssemblyScript, built into `wasm/yuv420.wasm` by `npm run build:wasm`). A WebAssembly module reads and writes its
 * own memory only, so a {@link YuvConversion} owns the memory the frame's pixels, the pixels last converted and the
 * yuv420p frame live in, and its views are what the renderer composes into and hands on.
 */
import type { Box } from './compositor.js';
import { yuv420Bytes } from '../media/raw-video.js';
import { checkYuv420Box } from './yuv420.js';
import { instantiate, KernelPool, WASM_PAGE, wasmKernel, type WasmModule } from '../wasm-kernel.js';

interface YuvExports {
  convert(words: number, width: number, height: number, out: number, x0: number, y0: number, x1: number, y1: number, previous: number): void;
}

/**
 * Conversions handed back ({@link YuvConversion.release}), by frame size, for the next renderer of that size on this
 * thread: a process drawing video after video then writes into memory it has already touched, where fresh memory
 * faults page by page (a 1280×720 conversion is 2 150 pages, ~11 µs a fault on a 2-vCPU VM). At most
 * {@link POOLED_PER_SIZE} a size are kept.
 */
const pools = new Map<string, KernelPool<YuvConversion>>();
const POOLED_PER_SIZE = 2;

/** One frame size's pixels, pixels last converted and yuv420p frame in WebAssembly memory, and their conversion. */
export class YuvConversion {
  /** The frame: `width × height` RGBA words (little-endian, red in the low byte), as the renderer composes them. */
  readonly words: Uint32Array;
  /** The pixels {@link bytes} holds the conversion of (see {@link convert}); zeros at first. */
  readonly previous: Uint32Array;
  /** The yuv420p frame. */
  readonly bytes: Uint8Array;
  private readonly exports: YuvExports;

  private constructor(
    readonly width: number,
    readonly height: number,
    module: WasmModule,
  ) {
    const pixels = width * height;
    // words, previous and bytes one after another: 16-byte aligned, as pixels is a multiple of 4 (even sides).
    const { memory, exports } = instantiate<YuvExports>(module, Math.ceil((8 * pixels + yuv420Bytes(width, height)) / WASM_PAGE));
    this.exports = exports;
    this.words = new Uint32Array(memory.buffer, 0, pixels);
    this.previous = new Uint32Array(memory.buffer, 4 * pixels, pixels);
    this.bytes = new Uint8Array(memory.buffer, 8 * pixels, yuv420Bytes(width, height));
  }

  /**
   * A conversion for frames of `width × height` (even sides), one handed back by {@link release} if there is one;
   * none when the compiled module is missing or cannot be compiled here (a bundle without the package's `wasm/`
   * folder, an engine without SIMD), or its memory cannot be had (an address-space limit: an engine reserves several
   * GiB of address space for each WebAssembly memory).
   * @throws RangeError for odd sides.
   */
  static create(width: number, height: number): YuvConversion | undefined {
    if ((width | height) & 1 || width <= 0 || height <= 0) throw new RangeError(`yuv420p needs even sides, not ${width}×${height}`);
    const pooled = pools.get(`${width}x${height}`)?.take();
    if (pooled) return pooled;
    const module = wasmKernel('yuv420');
    if (!module) return undefined;
    try {
      return new YuvConversion(width, height, module);
    } catch {
      return undefined;
    }
  }

  /**
   * Hands this conversion back for a later {@link create} of the same size on this thread; the caller no longer uses
   * it or its views. The next owner's {@link words} hold this one's last frame ({@link previous} and {@link bytes}
   * stay each other's conversion, which is all {@link convert} relies on).
   */
  release(): void {
    const key = `${this.width}x${this.height}`;
    let pool = pools.get(key);
    if (!pool) pools.set(key, (pool = new KernelPool(POOLED_PER_SIZE)));
    pool.give(this);
  }

  /**
   * Converts the pixels of `box` (even edges, within the frame) of {@link words} into {@link bytes}, as
   * `rgbaToYuv420(words, width, height, bytes, box, previous)` does: only the blocks that differ from
   * {@link previous}, which then holds them too.
   */
  convert(box: Box): void {
    const { x0, y0, x1, y1 } = box;
    const { width, height } = this;
    checkYuv420Box(width, height, box);
    if (x0 >= x1 || y0 >= y1) return;
    this.exports.convert(this.words.byteOffset, width, height, this.bytes.byteOffset, x0, y0, x1, y1, this.previous.byteOffset);
  }
}
