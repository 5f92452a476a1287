/**
 * The package as a new user gets it: `npm pack` (which builds dist/ through prepack), a plain `npm install` of the
 * tarball with express and koa into a fresh app (the npm registry is the only network), then the README's Express
 * and Koa snippets (ES modules, and CommonJS through `await import()`), run from that app, serve the API and render a
 * real video. publint and arethetypeswrong check the tarball's metadata and types.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ffmpeg } from '../helpers/media.js';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(root, 'node_modules/.bin', name);

/**
 * The README's embedding snippets, each with the file name it runs as: the ES-module ones (```ts blocks with
 * `import`) as .mjs, the CommonJS ones (```js blocks with `require`) as .cjs, as an app made by `npm init -y` runs them.
 */
async function readmeSnippets(): Promise<Record<string, { file: string; code: string }>> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const find = (framework: string, call: string, loader: string) => blocks.find((b) => b.includes(loader.replace('NAME', framework)) && b.includes(call));
  const snippets = {
    express: { file: 'express-server.mjs', code: find('express', 'virtualAnchor(', "from 'NAME'") },
    koa: { file: 'koa-server.mjs', code: find('koa', 'virtualAnchorKoa(', "from 'NAME'") },
    'express (CommonJS)': { file: 'express-server.cjs', code: find('express', 'virtualAnchor(', "require('NAME')") },
    'koa (CommonJS)': { file: 'koa-server.cjs', code: find('koa', 'virtualAnchorKoa(', "require('NAME')") },
  };
  for (const [name, snippet] of Object.entries(snippets)) assert.ok(snippet.code, `the README has the ${name} snippet`);
  return snippets as Record<string, { file: string; code: string }>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Runs `file` with node in `cwd` and waits until `url` answers. */
async function startServer(cwd: string, file: string, url: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [file], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) assert.fail(`${file} exited (${child.exitCode}): ${output}`);
    const ok = await fetch(url).then(
      () => true,
      () => false,
    );
    if (ok) return { child, output: () => output };
    if (Date.now() > deadline) assert.fail(`${file} did not answer within 60 s: ${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Run in the fresh app with node --test: the contract suites of the installed `virtual-anchor/testing` on the built-in stores, the in-process queue and the Express adapter. */
const SUITES_RUN = `
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import express from 'express';
import * as testing from 'virtual-anchor/testing';
import { FsBlobStore, MemoryIdempotencyStore, MemoryJobQueue, MemoryJobStore, virtualAnchor } from 'virtual-anchor';

for (const name of ['blobStoreSuite', 'jobStoreSuite', 'webhookOutboxSuite', 'idempotencyStoreSuite', 'queueSuite', 'adapterSuite', 'makeJob']) assert.equal(typeof testing[name], 'function', name);
testing.blobStoreSuite('FsBlobStore', { describe, it, create: async () => new FsBlobStore(await mkdtemp(join(tmpdir(), 'suite-'))) });
testing.jobStoreSuite('MemoryJobStore', { describe, it, create: async (settings) => new MemoryJobStore(settings), expect: ['recordExpiry'] });
testing.webhookOutboxSuite('MemoryJobStore', { describe, it, create: async ({ now }) => { const store = new MemoryJobStore({ now }); return { store, outbox: store.outbox }; } });
testing.idempotencyStoreSuite('MemoryIdempotencyStore', { describe, it, create: async () => new MemoryIdempotencyStore() });
const silent = { debug() {}, info() {}, warn() {}, error() {} };
testing.queueSuite('MemoryJobQueue', { describe, it, create: (limits) => new MemoryJobQueue(limits, silent) });
testing.adapterSuite('Express', {
  describe,
  it,
  instanceOptions: { logger: false },
  async mount(instance, { jsonBodyParser, fallback }) {
    const app = express();
    if (jsonBodyParser) app.use(express.json());
    app.use(virtualAnchor(instance));
    app.use((req, res) => fallback(req, res));
    const server = createServer(app);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  },
});
`;

/** Run in the fresh app: the installed typed client uploads, creates a video job and waits for it; prints the job. */
const CLIENT_RUN = `
import { readFile } from 'node:fs/promises';
import { VirtualAnchorClient } from 'virtual-anchor/client';
const [base, speech] = process.argv.slice(2);
const api = new VirtualAnchorClient({ baseUrl: base, apiKey: 'k1' });
const upload = await api.uploads.create(new Blob([await readFile(speech)], { type: 'audio/wav' }), { fileName: 'hello.wav' });
const avatarId = (await api.avatars.list()).data[0].uid;
const created = await api.avatarVideos.create({ audioUrl: upload.url, avatarId });
const job = await api.avatarVideos.waitForCompletion(created.uid, { backoff: { firstMs: 250, maxMs: 1000 }, signal: AbortSignal.timeout(120000) });
console.log(JSON.stringify(job));
`;

test('npm pack builds a tarball that installs with plain npm install and runs the README snippets', { timeout: 600_000 }, async () => {
  const work = await mkdtemp(join(tmpdir(), 'virtual-anchor-pack-'));
  try {
    // 1. Pack: prepack builds dist/.
    const packed = await exec('npm', ['pack', '--pack-destination', work, '--json'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    for (const needed of ['dist/index.js', 'dist/index.d.ts', 'dist/client/index.js', 'dist/client/index.d.ts', 'dist/testing/index.js', 'dist/testing/index.d.ts', 'models/lipsync/viseme.onnx', 'models/separation/separator.onnx', 'wasm/yuv420.wasm', 'wasm/pcm16.wasm', 'wasm/stft.wasm', 'wasm/resample.wasm',
      // Child-process modules found next to their parents at run time (without them, work falls back to the caller).
      'dist/inference/render/frame-worker.js', 'dist/inference/media/spawner-child.js']) {
      assert.ok(files.includes(needed), `the tarball holds ${needed}`);
    }
    assert.ok(files.some((f) => /^avatars\/.+\.json$/.test(f)), 'the tarball holds the bundled avatars');
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'sources and tests stay out of the tarball');
    const tarball = join(work, info!.filename);

    // 2. publint and arethetypeswrong on the tarball (ESM-only package: the esm-only profile).
    await exec(bin('publint'), ['run', tarball], { cwd: work });
    const attw = await exec(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], { cwd: work });
    // attw exits non-zero on any problem of the profile; the ESM resolutions must be green.
    assert.match(attw.stdout, /node16 \(from ESM\): 🟢/);
    assert.match(attw.stdout, /bundler: 🟢/);

    // 3. A fresh app: plain npm install of the tarball and the frameworks.
    const app = join(work, 'app');
    await exec('mkdir', ['-p', app]);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }));
    const installed = await exec('npm', ['install', '--no-audit', '--no-fund', tarball, 'express', 'koa'], {
      cwd: app,
      maxBuffer: 64 * 1024 * 1024,
    });
    const npmOutput = installed.stdout + installed.stderr;
    assert.doesNotMatch(npmOutput, /Unknown project config/, 'npm install prints no unknown-config warning');
    const ort = JSON.parse(await readFile(join(app, 'node_modules/onnxruntime-node/package.json'), 'utf8')) as { version: string };
    assert.equal(ort.version, '1.16.3', 'the pinned onnxruntime-node (no install script) was installed');
    assert.ok((await readdir(join(app, 'node_modules/virtual-anchor/dist'))).includes('index.js'));

    // 4. The contract suites from the installed `virtual-anchor/testing`, under node:test.
    await writeFile(join(app, 'suites.test.mjs'), SUITES_RUN);
    // A plain run, not a subtest of this one (node:test tells its children so through NODE_TEST_CONTEXT).
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const suites = await exec(process.execPath, ['--test', '--test-reporter=tap', 'suites.test.mjs'], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 }).catch(
      (error: { stdout?: string; stderr?: string }) => assert.fail(`the suites failed from the installed package:\n${error.stdout}\n${error.stderr}`),
    );
    assert.match(suites.stdout, /^# fail 0$/m, suites.stdout);
    const passed = Number(/^# pass (\d+)$/m.exec(suites.stdout)?.[1]);
    assert.ok(passed >= 40, `only ${passed} suite tests ran: ${suites.stdout}`);

    // 5. The README snippets, as written, on a free port: ES modules and CommonJS (`await import()`), Express and Koa.
    const snippets = await readmeSnippets();
    const speech = join(app, 'hello.wav');
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=220:duration=2:sample_rate=16000', '-af', 'volume=0.5', speech]);
    for (const [framework, { file, code }] of Object.entries(snippets)) {
      const port = await freePort();
      assert.match(code, /app\.listen\(3000\)/);
      await writeFile(join(app, file), code.replace('app.listen(3000)', `app.listen(${port})`));
      const base = `http://127.0.0.1:${port}`;
      const server = await startServer(app, file, `${base}/v1/openapi.json`);
      try {
        const avatars = await json(`${base}/v2/avatar`, { headers: { key: 'k1' } });
        assert.equal(avatars.status, 200, `${framework}: GET /v2/avatar`);
        assert.equal((avatars.body.data as unknown[]).length, 3);
        assert.equal((await fetch(`${base}/v2/avatar`)).status, 403, `${framework}: no key, 403`);
        if (framework !== 'express') continue;
        // A real video from the installed package, through its typed client (virtual-anchor/client): upload, job, wait, download.
        await writeFile(join(app, 'client-run.mjs'), CLIENT_RUN);
        const run = await exec(process.execPath, ['client-run.mjs', base, speech], { cwd: app });
        const job = JSON.parse(run.stdout) as Record<string, unknown>;
        assert.equal(job.status, 'completed', `the job completed: ${JSON.stringify(job)} ${server.output()}`);
        const video = Buffer.from(await (await fetch(String(job.path))).arrayBuffer());
        assert.equal(video.subarray(4, 8).toString('latin1'), 'ftyp', 'the result is an mp4');
      } finally {
        await stop(server.child);
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
});
