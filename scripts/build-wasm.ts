/**
 * Compiles the package's WebAssembly kernels from their AssemblyScript sources: wasm/yuv420.ts → wasm/yuv420.wasm
 * (the RGBA → yuv420p conversion of lip-sync frames, see src/inference/render/yuv420-wasm.ts), wasm/pcm16.ts →
 * wasm/pcm16.wasm (f32 → 16-bit PCM for WAV stems, see src/inference/media/pcm16-wasm.ts), wasm/stft.ts →
 * wasm/stft.wasm (the separation's STFT frames, see src/inference/separation/stft-wasm.ts) and wasm/resample.ts →
 * wasm/resample.wasm (the inner loop of the lip-sync analysis's resampler, see src/inference/media/resample-wasm.ts).
 * The .wasm files are committed and shipped (package.json `files`), so installing the package compiles nothing;
 * rebuild them after changing a source. The build is reproducible: tests compile each source again and compare the bytes.
 *
 *   npm run build:wasm                 → wasm/yuv420.wasm, wasm/pcm16.wasm, wasm/stft.wasm, wasm/resample.wasm
 *   tsx scripts/build-wasm.ts NAME OUT → OUT, from wasm/NAME.ts
 */
import asc from 'assemblyscript/asc';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the sources and of the committed modules. */
export const WASM_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'wasm');

/** The kernels, by the name of their source and module in wasm/. */
export const WASM_KERNELS = ['yuv420', 'pcm16', 'stft', 'resample'] as const;

/** The name of one of the {@link WASM_KERNELS}. */
export type WasmKernelName = (typeof WASM_KERNELS)[number];

/**
 * Compiles wasm/`name`.ts into `outFile`: fully optimised, 128-bit SIMD, no runtime or allocator (a kernel only
 * reads and writes the memory it is given), the memory imported (each user gives its own), no abort import.
 * @throws Error with the compiler's messages when it fails.
 */
export async function buildWasm(name: WasmKernelName, outFile = join(WASM_DIR, `${name}.wasm`)): Promise<void> {
  let messages = '';
  const { error } = await asc.main(
    [join(WASM_DIR, `${name}.ts`), '-O3', '--enable', 'simd', '--runtime', 'stub', '--importMemory', '--use', 'abort=', '-o', outFile],
    { stderr: { write: (text: string | Uint8Array) => ((messages += String(text)), true) } as never },
  );
  if (error) throw new Error(`asc failed: ${error.message}\n${messages}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [name, out] = process.argv.slice(2);
  for (const kernel of WASM_KERNELS) {
    if (name !== undefined && name !== kernel) continue;
    const file = out ? resolve(out) : join(WASM_DIR, `${kernel}.wasm`);
    await buildWasm(kernel, file);
    console.log(`built ${file}`);
  }
}
