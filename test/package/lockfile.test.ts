/**
 * package-lock.json as `npm ci` reads it on any machine. `npm ci` refuses a lock that is out of sync with
 * package.json, and counts as out of sync a lock that lacks an optional package of another platform: npm records
 * every platform's optional packages (@napi-rs/canvas-darwin-arm64, @msgpackr-extract/msgpackr-extract-win32-x64, …)
 * when it resolves them, so a lock written for one platform and trimmed fails on the others.
 *
 * The first test reads the lock alone (no network). The second lets npm itself judge: package.json and the lock
 * are copied into a fresh folder, `npm install --package-lock-only` runs there (the npm registry is the only
 * network it may need) and the lock it leaves must be byte for byte the one committed. When it fails, run
 * `npm install --package-lock-only` at the repository root and commit the lock it writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

interface LockEntry {
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
interface Lock {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/** Where Node would find `name` from the package at `location` ('' is the root): its own node_modules, then each parent's. */
function resolveIn(packages: Lock['packages'], location: string, name: string): string | undefined {
  let from = location;
  for (;;) {
    const candidate = from === '' ? `node_modules/${name}` : `${from}/node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (from === '') return undefined;
    const up = from.lastIndexOf('/node_modules/');
    from = up < 0 ? '' : from.slice(0, up);
  }
}

/** The entries that differ between two locks' `packages`, as `+added`, `-removed` and `~changed` lines. */
function packageChanges(before: Lock, after: Lock): string[] {
  const lines: string[] = [];
  for (const key of Object.keys(after.packages)) {
    if (!(key in before.packages)) lines.push(`+ ${key}@${after.packages[key]!.version}`);
    else if (JSON.stringify(before.packages[key]) !== JSON.stringify(after.packages[key])) lines.push(`~ ${key || '(root)'}`);
  }
  for (const key of Object.keys(before.packages)) if (!(key in after.packages)) lines.push(`- ${key}@${before.packages[key]!.version}`);
  return lines;
}

test('the lock holds every dependency of every locked package, optional ones of all platforms included', async () => {
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as Lock;
  assert.equal(lock.lockfileVersion, 3);
  const missing: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue;
    const required = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...(location === '' ? entry.devDependencies : {}),
      ...Object.fromEntries(Object.entries(entry.peerDependencies ?? {}).filter(([name]) => !entry.peerDependenciesMeta?.[name]?.optional)),
    };
    for (const name of Object.keys(required)) {
      if (!resolveIn(lock.packages, location, name)) missing.push(`${name}@${required[name]} (needed by ${location || 'the root'})`);
    }
  }
  assert.deepEqual(missing, [], 'packages that `npm ci` would report as "Missing: … from lock file"');
});

/**
 * Packages that run a script when installed, and why none downloads anything: an install that needs the internet
 * fails on closed networks. A new entry must be read before it is added here.
 */
const INSTALL_SCRIPTS: Record<string, string> = {
  '@ffmpeg-installer/': 'postinstall `chmod u+x ffmpeg` on the binary the package ships',
  '@ffprobe-installer/': 'postinstall `chmod u+x ffprobe` on the binary the package ships',
  esbuild: 'postinstall checks the platform binary that came as an optional package (no download when it is there, as the lock ensures)',
  'msgpackr-extract': 'node-gyp-build-optional-packages loads the prebuilt binary from an optional package, or builds from source',
};

test('no locked package downloads while installing: every install script is known, and onnxruntime-node has none', async () => {
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as Lock;
  const unknown = Object.entries(lock.packages)
    .filter(([, entry]) => (entry as { hasInstallScript?: boolean }).hasInstallScript)
    .map(([location]) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .filter((name) => !Object.keys(INSTALL_SCRIPTS).some((known) => (known.endsWith('/') ? name.startsWith(known) : name === known)));
  assert.deepEqual(unknown, [], 'packages with an install script not yet read (onnxruntime-node after 1.16.3 downloads CUDA libraries: keep the pin, docs/install.md)');
  const ort = lock.packages['node_modules/onnxruntime-node'];
  assert.equal(ort?.version, '1.16.3', 'onnxruntime-node stays on the last release without an install script');
});

test('npm install --package-lock-only leaves package-lock.json byte-identical', { timeout: 300_000 }, async () => {
  const work = await mkdtemp(join(tmpdir(), 'va-lockfile-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
      if (existsSync(join(root, file))) await copyFile(join(root, file), join(work, file));
    }
    const committed = await readFile(join(work, 'package-lock.json'));
    const npm = await exec('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: work,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const output = npm.stdout + npm.stderr;
    const written = await readFile(join(work, 'package-lock.json'));
    if (!written.equals(committed)) {
      const changes = packageChanges(JSON.parse(committed.toString('utf8')) as Lock, JSON.parse(written.toString('utf8')) as Lock);
      assert.fail(
        'package-lock.json is out of sync with package.json: `npm install` would rewrite it and `npm ci` may refuse it. ' +
          'Run `npm install --package-lock-only` and commit the lock.\n' +
          (changes.length ? changes.join('\n') : '(the same packages, written differently)'),
      );
    }
    // .npmrc's onnxruntime-node-install=skip (no CUDA download on a machine without internet, should onnxruntime-node
    // ever be upgraded) is unknown to npm 11, which names it in a warning: as a project config, and again as an env
    // config when this runs under `npm test` (npm passes its config on to the environment). Those, and no other.
    const warnings = output.split('\n').filter((line) => /^npm warn/i.test(line) && !/Unknown (project|env) config "onnxruntime-node-install"/.test(line));
    assert.deepEqual(warnings, [], `npm printed warnings:\n${output}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
