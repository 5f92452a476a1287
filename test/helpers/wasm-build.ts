import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWasm, WASM_DIR, type WasmKernelName } from '../../scripts/build-wasm.js';

/** Fails unless compiling wasm/`name`.ts again gives the committed wasm/`name`.wasm byte for byte. */
export async function assertCommittedWasm(name: WasmKernelName): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'va-wasm-'));
  try {
    const built = join(dir, `${name}.wasm`);
    await buildWasm(name, built);
    assert.ok((await readFile(built)).equals(await readFile(join(WASM_DIR, `${name}.wasm`))), `rebuild wasm/${name}.wasm: npm run build:wasm`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
