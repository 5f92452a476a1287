/**
 * The package's WebAssembly kernels (`wasm/*.wasm`, compiled from AssemblyScript by `npm run build:wasm` and shipped
 * with the package, as `models/` is): the part of the WebAssembly API they use (a global of Node; the project's
 * TypeScript lib has no types for it), each module compiled once per thread, and what every kernel's loader does with
 * its instance's memory.
 */
import { readFileSync } from 'node:fs';

/** What is used here of the WebAssembly API. */
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: { env: { memory: WasmMemory } }) => { exports: unknown };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
/** A compiled module (opaque). */
export type WasmModule = { readonly brand?: 'WebAssembly.Module' };
/** A module's memory: its buffer is replaced when it grows. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Bytes in a page of WebAssembly memory. */
export const WASM_PAGE = 65_536;

/** Modules compiled on this thread, by file name; `null` for one that cannot be read or compiled. */
const compiled = new Map<string, WasmModule | null>();

/**
 * `wasm/<name>.wasm`, compiled once per thread; `null` when it cannot be read or compiled here (a bundle without the
 * package's `wasm/` folder, an engine without SIMD): its callers then compute in TypeScript.
 */
export function wasmKernel(name: string): WasmModule | null {
  let module = compiled.get(name);
  if (module === undefined) {
    try {
      module = new WebAssembly.Module(readFileSync(new URL(`../../wasm/${name}.wasm`, import.meta.url)));
    } catch {
      module = null;
    }
    compiled.set(name, module);
  }
  return module;
}

/** A new instance of `module` with a memory of its own, `pages` pages to start with ({@link WASM_PAGE} bytes each). */
export function instantiate<Exports>(module: WasmModule, pages = 1): { memory: WasmMemory; exports: Exports } {
  const memory = new WebAssembly.Memory({ initial: pages });
  return { memory, exports: new WebAssembly.Instance(module, { env: { memory } }).exports as Exports };
}

/** Grows `memory` to at least `bytes` (its buffer is then a new one). */
export function reserve(memory: WasmMemory, bytes: number): void {
  const have = memory.buffer.byteLength;
  if (bytes > have) memory.grow(Math.ceil((bytes - have) / WASM_PAGE));
}

/** `bytes` rounded up to a multiple of 16: where a kernel's next 128-bit aligned part may start. */
export function align16(bytes: number): number {
  return (bytes + 15) & ~15;
}

/**
 * Instances of a kernel's loader handed back for reuse on this thread, at most `max` kept: each WebAssembly memory
 * reserves several GiB of address space until it is collected, and memory used before is already touched.
 */
export class KernelPool<T> {
  private readonly free: T[] = [];

  constructor(private readonly max: number) {}

  /** One handed back, if any (taken out of the pool). */
  take(): T | undefined {
    return this.free.pop();
  }

  /** Keeps `item` for a later {@link take}, unless the pool is full or holds it already. */
  give(item: T): void {
    if (this.free.length < this.max && !this.free.includes(item)) this.free.push(item);
  }
}
