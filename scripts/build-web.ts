/**
 * Builds the demo page (web/) into a static folder: type-checks and compiles web/src/*.ts and the typed
 * client it uses (src/client, imported as `./client/index.js`: web/tsconfig.json merges both folders with
 * `rootDirs`) with the project's TypeScript (native ES modules, no bundler, no CDN), lays the output out as
 * that merged folder (page at the top, client/ beside it) and copies index.html and styles.css.
 *
 *   npm run build:web              → web/dist/
 *   tsx scripts/build-web.ts DIR   → DIR
 */
import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The page's source folder. */
export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'web');
/** Where `npm run build:web` writes the page (git-ignored). */
export const DEFAULT_OUT_DIR = join(WEB_DIR, 'dist');

const STATIC_FILES = ['index.html', 'styles.css'];

/** Builds the page into `outDir` (emptied first); rejects with the compiler's messages on a type error. */
export async function buildWeb(outDir: string = DEFAULT_OUT_DIR): Promise<string> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  // tsc writes paths relative to the repository root (web/src/…, src/client/…); both become the top of outDir.
  const compiled = join(outDir, '.tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', join(WEB_DIR, 'tsconfig.json'), '--outDir', compiled], { cwd: WEB_DIR });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`building the demo page failed:\n${stdout ?? ''}${stderr ?? ''}`.trimEnd());
  }
  for (const merged of ['web/src', 'src']) await cp(join(compiled, merged), outDir, { recursive: true });
  await rm(compiled, { recursive: true, force: true });
  for (const file of STATIC_FILES) await copyFile(join(WEB_DIR, file), join(outDir, file));
  return outDir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  buildWeb(process.argv[2] ? resolve(process.argv[2]) : undefined).then(
    (dir) => console.log(`demo page built into ${dir} in ${Date.now() - started} ms`),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
