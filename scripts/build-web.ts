/**
 * Builds the demo page (web/) into a static folder: type-checks and compiles web/src/*.ts and the typed
 * client it uses (src/client, imported as `./client/index.js`: web/tsconfig.json merges both folders with
 * `rootDirs`) with the project's TypeScript (native ES modules, no bundler, no CDN), lays the output out as
 * that merged folder (page at the top, client/ beside it) and copies index.html and styles.css.
 *
 * Run as a script (`npm start` runs it first) it builds only when the page's sources changed since the last
 * build: a hash of web/ (less the output), src/client/, this script and the TypeScript version is kept in the
 * output folder (.source-hash) and compared; one line says which happened.
 *
 *   npm run build:web                      → web/dist/, when its sources changed
 *   tsx scripts/build-web.ts [DIR]         → DIR, when its sources changed
 *   tsx scripts/build-web.ts --force [DIR] → rebuilds whatever the hash says
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The page's source folder. */
export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'web');
/** Where `npm run build:web` writes the page (git-ignored). */
export const DEFAULT_OUT_DIR = join(WEB_DIR, 'dist');

const ROOT = dirname(WEB_DIR);
const STATIC_FILES = ['index.html', 'styles.css'];
/** Kept in the output folder by every build: the hash of the sources it was built from. The page server serves no dotfile. */
const HASH_FILE = '.source-hash';

/** Every file under `dir` (sorted, recursively), leaving out the folders in `skip`. */
async function filesUnder(dir: string, skip: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip.includes(path)) found.push(...(await filesUnder(path, skip)));
    } else if (entry.isFile()) {
      found.push(path);
    }
  }
  return found;
}

/**
 * A hash of what the page is built from: web/ (less `outDir` and web/dist), src/client/ (compiled into the page),
 * this script and the TypeScript that compiles it. Paths are part of it, so a renamed or removed file counts.
 */
export async function sourceHash(outDir: string = DEFAULT_OUT_DIR): Promise<string> {
  const hash = createHash('sha256');
  const typescript = JSON.parse(await readFile(createRequire(import.meta.url).resolve('typescript/package.json'), 'utf8')) as { version: string };
  hash.update(`typescript ${typescript.version}\0`);
  const files = [
    ...(await filesUnder(WEB_DIR, [resolve(outDir), DEFAULT_OUT_DIR])),
    ...(await filesUnder(join(ROOT, 'src', 'client'), [])),
    fileURLToPath(import.meta.url),
  ];
  for (const file of files) {
    hash.update(`${relative(ROOT, file).split(sep).join('/')}\0`);
    hash.update(await readFile(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Builds the page into `outDir` (emptied first); rejects with the compiler's messages on a type error. */
export async function buildWeb(outDir: string = DEFAULT_OUT_DIR): Promise<string> {
  const hash = await sourceHash(outDir);
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
  // Written last, from the sources as they were when the build started: a build that fails leaves none.
  await writeFile(join(outDir, HASH_FILE), `${hash}\n`);
  return outDir;
}

/** Why `outDir` needs a build, or undefined when it holds a page built from the current sources. */
export async function staleReason(outDir: string = DEFAULT_OUT_DIR): Promise<string | undefined> {
  const [kept, page] = await Promise.all([
    readFile(join(outDir, HASH_FILE), 'utf8').then((text) => text.trim(), () => undefined),
    stat(join(outDir, 'index.html')).then((info) => info.isFile(), () => false),
  ]);
  if (!page || kept === undefined) return 'no earlier build';
  return kept === (await sourceHash(outDir)) ? undefined : 'its sources changed since the last build';
}

/** Builds the page into `outDir` only when {@link staleReason} gives a reason (or `force`); says which happened. */
export async function buildWebIfChanged(outDir: string = DEFAULT_OUT_DIR, force = false): Promise<{ outDir: string; built: boolean; reason: string }> {
  const reason = force ? 'forced with --force' : await staleReason(outDir);
  if (reason === undefined) return { outDir, built: false, reason: 'its sources are unchanged since the last build' };
  await buildWeb(outDir);
  return { outDir, built: true, reason };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const args = process.argv.slice(2);
  const dir = args.find((arg) => arg !== '--force');
  const shown = (path: string) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path) || '.');
  buildWebIfChanged(dir ? resolve(dir) : undefined, args.includes('--force')).then(
    ({ outDir, built, reason }) =>
      console.log(
        built
          ? `demo page built into ${shown(outDir)} in ${Date.now() - started} ms (${reason})`
          : `demo page in ${shown(outDir)} is up to date, not rebuilt (${reason}; --force rebuilds it)`,
      ),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
