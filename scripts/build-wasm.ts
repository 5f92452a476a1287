/**
 * Compiles the package's WebAssembly kernels from their AssemblyScript sources: wasm/yuv420.ts → wasm/yuv420.wasm
 * (the RGBA → yuv420p conversion of lip-sync frames, see src/inference/render/yuv420-wasm.ts). The .wasm is committed
 * and shipped (package.json `files`), so installing the package compiles nothing; rebuild it after changing the
 * source. The build is reproducible: test/avatar/yuv420.test.ts compiles the source again and compares the bytes.
 *
 *   npm run build:wasm            → wasm/yuv420.wasm
 *   tsx scripts/build-wasm.ts OUT → OUT
 */
import asc from 'assemblyscript/asc';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the sources and of the committed modules. */
export const WASM_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'wasm');

/**
 * Compiles wasm/yuv420.ts into `outFile`: fully optimised, 128-bit SIMD, no runtime or allocator (the kernel only
 * reads and writes the memory it is given), the memory imported (each renderer gives its own), no abort import.
 * @throws Error with the compiler's messages when it fails.
 */
export async function buildYuv420Wasm(outFile = join(WASM_DIR, 'yuv420.wasm')): Promise<void> {
  let messages = '';
  const { error } = await asc.main(
    [join(WASM_DIR, 'yuv420.ts'), '-O3', '--enable', 'simd', '--runtime', 'stub', '--importMemory', '--use', 'abort=', '-o', outFile],
    { stderr: { write: (text: string | Uint8Array) => ((messages += String(text)), true) } as never },
  );
  if (error) throw new Error(`asc failed: ${error.message}\n${messages}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ? resolve(process.argv[2]) : undefined;
  await buildYuv420Wasm(out);
  console.log(`built ${out ?? join(WASM_DIR, 'yuv420.wasm')}`);
}
