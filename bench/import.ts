/**
 * What importing the package costs a host: fresh Node processes that import the compiled entry (dist/index.js, as
 * a host's `import 'virtual-anchor'` does; built first with `npm run build` when missing or older than src/), against
 * bare Node processes that import nothing, alternating BENCH_IMPORT_ROUNDS times (default 9), medians. Each process
 * reports the import's own duration, its CPU time and its peak resident memory, and which of the optional
 * backends' client libraries (@redis/client, bullmq, the AWS SDK's S3 packages) the import loaded: none, since
 * they load when a backend that needs them is built (src/storage/backend-sdks.ts).
 *
 * One JSON line (`import`).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { BenchSection } from './lib/settings.js';
import { median, round } from './lib/stats.js';
import { LOADED_LIBRARIES_EXPRESSION } from '../test/helpers/optional-libraries.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, 'dist', 'index.js');
const ROUNDS = Math.max(1, Number(process.env.BENCH_IMPORT_ROUNDS ?? 9));

interface Sample {
  /** From the process's start to the end of its script, ms. */
  wallMs: number;
  /** The `import()` alone, ms. */
  importMs: number;
  /** User + system CPU of the whole process, ms. */
  cpuMs: number;
  /** Peak resident memory, MiB. */
  maxRssMiB: number;
  /** Optional client libraries found in the module cache. */
  loaded: string[];
}

/** The newest modification time of the files under `dir`. */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);
}

async function sample(entry: string | undefined): Promise<Sample> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const start = performance.now();
    ${entry ? `await import(${JSON.stringify(pathToFileURL(entry).href)});` : ''}
    const importMs = performance.now() - start;
    const usage = process.resourceUsage();
    // Linux's maxRSS of an exec'd child starts at its parent's resident set when it forked (a bench process that ran
    // the lip-sync sections before: ~430 MiB); the peak of this program's own memory is /proc's VmHWM.
    const { readFileSync } = await import('node:fs');
    let hwmKiB;
    try {
      hwmKiB = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
    } catch {}
    console.log(JSON.stringify({
      wallMs: performance.now(),
      importMs,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      maxRssMiB: (hwmKiB || usage.maxRSS) / 1024,
      loaded: ${LOADED_LIBRARIES_EXPRESSION},
    }));
  `;
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Sample;
}

export const importBench: BenchSection = async (_settings, emit) => {
  if (!existsSync(ENTRY) || statSync(ENTRY).mtimeMs < newest(join(ROOT, 'src'))) {
    await exec('npm', ['run', 'build'], { cwd: ROOT });
  }
  await sample(ENTRY); // unmeasured: fills the page cache
  const runs: { package: Sample[]; bare: Sample[] } = { package: [], bare: [] };
  for (let r = 0; r < ROUNDS; r++) {
    runs.package.push(await sample(ENTRY));
    runs.bare.push(await sample(undefined));
  }
  const of = (samples: Sample[], key: 'wallMs' | 'importMs' | 'cpuMs' | 'maxRssMiB') => round(median(samples.map((s) => s[key])), 1);
  emit({
    bench: 'import',
    rounds: ROUNDS,
    importMs: of(runs.package, 'importMs'),
    processWallMs: of(runs.package, 'wallMs'),
    processCpuMs: of(runs.package, 'cpuMs'),
    maxRssMiB: of(runs.package, 'maxRssMiB'),
    bareNode: { processWallMs: of(runs.bare, 'wallMs'), processCpuMs: of(runs.bare, 'cpuMs'), maxRssMiB: of(runs.bare, 'maxRssMiB') },
    optionalLibrariesLoaded: [...new Set(runs.package.flatMap((s) => s.loaded))],
    importRange: [round(Math.min(...runs.package.map((s) => s.importMs)), 1), round(Math.max(...runs.package.map((s) => s.importMs)), 1)],
  });
};
