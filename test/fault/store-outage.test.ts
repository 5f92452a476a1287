/**
 * Issue #10, item 5: an unreachable Redis. A real redis-server of the test's own is started and
 * killed on its own port; the instance must answer 503 `unavailable` fast instead of hanging, say
 * so once in the log, recover without a restart, never create a job from a request that got 503,
 * and close (and the example servers exit on SIGTERM) whatever Redis does. A creation (a job, a photo or
 * video avatar) during an outage is refused before any of its input work: nothing downloaded, probed or
 * shown to the face detector.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import Koa from 'koa';
import request from 'supertest';
import { virtualAnchor, virtualAnchorKoa, type Logger, type VirtualAnchor, type VirtualAnchorOptions } from '../../src/index.js';
import { ADAPTERS, type Adapter } from '../helpers/apps.js';
import { FakeAvatarRenderer, FakeLipSyncEngine, FakeSeparationEngine } from '../helpers/engines.js';
import { FakeFaceDetector, FakePhotoRenderer, makePortraits } from '../helpers/photo-doubles.js';
import { useHarness } from '../helpers/harness.js';
import { BINARIES } from '../helpers/media.js';
import { RedisServerProcess, freePort } from '../helpers/redis-server.js';

const KEY = 'store-outage-key';
/** The bound for a 503, with room for a contended CPU. */
const ANSWER_WITHIN_MS = 3_000;
/** A request that hangs fails the test after this, instead of stalling the run. */
const REQUEST_TIMEOUT_MS = 8_000;
/** A test that hangs (an instance that never closes) fails after this, and the next one runs. */
const TEST_TIMEOUT_MS = 45_000;

const h = useHarness();

interface LogLine {
  level: keyof Logger;
  message: string;
}

/** A logger that keeps every line. */
function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: keyof Logger) => (message: string) => void lines.push({ level, message });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

interface OutageApp {
  instance: VirtualAnchor;
  http: request.Agent;
  lines: LogLine[];
  /** The face detector of photo avatars (a double that counts its calls). */
  detector: FakeFaceDetector;
  /** Closes the instance, then the server (idempotent). */
  close(): Promise<void>;
}

/** An Express or Koa host with a fresh instance on `redisUrl`; does NOT wait for `ready()` (Redis may be down). */
async function startApp(adapter: Adapter, redisUrl: string, extra: Partial<VirtualAnchorOptions> = {}): Promise<OutageApp> {
  const dataDir = await mkdtemp(join(tmpdir(), `va-store-outage-${adapter}-`));
  const { logger, lines } = recordingLogger();
  const detector = new FakeFaceDetector();
  const options = {
    apiKeys: [KEY],
    logger,
    allowPrivateUrls: true,
    ...BINARIES,
    dataDir,
    redis: redisUrl,
    redisNamespace: `test-${randomUUID()}`,
    backends: {
      avatarRenderer: new FakeAvatarRenderer(),
      lipSync: new FakeLipSyncEngine(),
      separation: new FakeSeparationEngine(),
      faceDetector: detector,
      photoRenderer: new FakePhotoRenderer(),
    },
    ...extra,
  };
  let server: Server;
  let instance: VirtualAnchor;
  if (adapter === 'express') {
    const middleware = virtualAnchor(options);
    instance = middleware.instance;
    server = createServer(express().use(middleware));
  } else {
    const middleware = virtualAnchorKoa(options);
    instance = middleware.instance;
    server = createServer(new Koa().use(middleware).callback());
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closing: Promise<void> | undefined;
  return {
    instance,
    http: request.agent(server),
    lines,
    detector,
    close() {
      closing ??= (async () => {
        await instance.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await rm(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/** Sends a request and measures how long the answer took. */
async function timed(send: () => request.Test): Promise<{ res: request.Response; ms: number }> {
  const started = performance.now();
  const res = await send().timeout({ response: REQUEST_TIMEOUT_MS, deadline: REQUEST_TIMEOUT_MS });
  return { res, ms: performance.now() - started };
}

const listJobs = (app: OutageApp) => app.http.get('/v1/sourceSeparations?perPage=100').set('key', KEY);
const postJob = (app: OutageApp, audioUri = h.url('speech.wav')) => app.http.post('/v1/sourceSeparations').set('key', KEY).send({ audioUri });

/**
 * Asserts a fast 503 `unavailable` for a creation, and that its input was not even downloaded: the store said it was
 * down (`JobStore.suspectedDown`), so a ping decided before the downloads and checks.
 */
async function assertPostUnavailable(app: OutageApp, what: string): Promise<void> {
  // A URL of this request's own (the tests of a file run at once and share the file server).
  const audioUri = `${h.url('speech.wav')}?request=${randomUUID()}`;
  await assertUnavailable(() => postJob(app, audioUri), what);
  assert.equal(h.files.requests(audioUri), 0, `${what}: the input was downloaded`);
}

let portraits: string;
before(async () => {
  portraits = await mkdtemp(join(tmpdir(), 'va-store-outage-portraits-'));
  await makePortraits(portraits);
});
after(() => rm(portraits, { recursive: true, force: true }));

/**
 * Asserts a fast 503 `unavailable` for the creation of a photo avatar (a portrait) or a video avatar (a clip), before
 * its checks: nothing went to the face detector (and a clip with no face in it would have been a 400 after them).
 */
async function assertAvatarUnavailable(app: OutageApp, what: string): Promise<void> {
  for (const file of [join(portraits, 'portrait.png'), h.path('clip.mp4')]) {
    const detections = app.detector.calls;
    await assertUnavailable(() => app.http.post('/v2/avatar').set('key', KEY).field('name', 'Outage').attach('file', file), `${what} (${file})`);
    assert.equal(app.detector.calls, detections, `${what}: ${file} went to the face detector`);
  }
}

/** Asserts a fast 503 `unavailable` in the JSON error shape. */
async function assertUnavailable(send: () => request.Test, what: string): Promise<void> {
  const { res, ms } = await timed(send);
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
  assert.equal((res.body as { error: { code: string } }).error.code, 'unavailable', what);
  assert.ok(ms < ANSWER_WITHIN_MS, `${what} answered after ${Math.round(ms)} ms`);
}

/** Polls until `check` is true (checking at least once), or fails after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const count = (lines: LogLine[], pattern: RegExp, level: keyof Logger) =>
  lines.filter((line) => line.level === level && pattern.test(line.message)).length;

/**
 * Once Redis is back (and empty): the same instance answers again, `ready()` resolves, a new POST
 * is the only job (no request that got 503 was replayed), and the log said "unreachable" and
 * "reachable again" exactly once each.
 */
async function assertRecovers(app: OutageApp): Promise<void> {
  await until('the instance to reach Redis', async () => (await timed(() => listJobs(app))).res.status === 200);
  await app.instance.ready();
  const created = await timed(() => postJob(app));
  assert.equal(created.res.status, 201, created.res.text);
  // Give a replayed command every chance to land before counting.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const listed = await timed(() => listJobs(app));
  assert.equal(listed.res.status, 200);
  assert.equal(listed.res.body.total, 1, `jobs after the outage: ${JSON.stringify(listed.res.body.data)}`);
  assert.equal(count(app.lines, /^job store unreachable/, 'error'), 1, JSON.stringify(app.lines));
  assert.equal(count(app.lines, /^job store reachable again/, 'warn'), 1, JSON.stringify(app.lines));
}

const servers: RedisServerProcess[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function redisOnFreePort(): Promise<RedisServerProcess> {
  const server = new RedisServerProcess(await freePort());
  servers.push(server);
  return server;
}

for (const adapter of ADAPTERS) {
  // The tests run at once: each has its own redis-server, port and instance, and mostly waits (on timeouts, closes).
  describe(`store outage over ${adapter}`, { concurrency: true }, () => {
    it('answers 503 fast while Redis is down at start, logs it once, and recovers without a restart', { timeout: TEST_TIMEOUT_MS }, async () => {
      const redis = await redisOnFreePort();
      const app = await startApp(adapter, redis.url);
      try {
        await assert.rejects(app.instance.ready(), { name: 'StoreUnavailableError' });
        for (let i = 0; i < 3; i++) await assertUnavailable(() => listJobs(app), 'GET list with Redis down');
        await assertPostUnavailable(app, 'POST with Redis down');
        await assertAvatarUnavailable(app, 'avatar with Redis down');
        // Routes that do not need the store still work.
        assert.equal((await timed(() => app.http.get('/v1/openapi.json'))).res.status, 200);

        await redis.start();
        await assertRecovers(app);
      } finally {
        await app.close();
        await redis.stop();
      }
    });

    it('answers 503 fast when Redis is lost mid-run, and a POST that got 503 never creates a job later', { timeout: TEST_TIMEOUT_MS }, async () => {
      const redis = await redisOnFreePort();
      await redis.start();
      const app = await startApp(adapter, redis.url);
      try {
        await app.instance.ready();
        assert.equal((await timed(() => postJob(app))).res.status, 201);

        await redis.stop();
        for (let i = 0; i < 3; i++) await assertUnavailable(() => listJobs(app), 'GET list after Redis was lost');
        await assertPostUnavailable(app, 'POST after Redis was lost');
        await assertPostUnavailable(app, 'second POST after Redis was lost');
        await assertAvatarUnavailable(app, 'avatar after Redis was lost');

        // The restarted Redis is empty (nothing on disk): every job it holds was created after it came back.
        await redis.start();
        await assertRecovers(app);
      } finally {
        await app.close();
        await redis.stop();
      }
    });

    it('answers 503 within the command timeout while Redis hangs, and closes within a bound', { timeout: TEST_TIMEOUT_MS }, async () => {
      const redis = await redisOnFreePort();
      await redis.start();
      const app = await startApp(adapter, redis.url, { redisTimeouts: { connectMs: 1_000, commandMs: 1_000 } });
      try {
        await app.instance.ready();
        redis.pause();
        await assertUnavailable(() => listJobs(app), 'GET list while Redis hangs');
        await assertPostUnavailable(app, 'POST while Redis hangs');
        const started = performance.now();
        await app.close();
        // About 3 s: the queue worker's close step (2 s) and the Redis connection's (commandMs). It took 8 s while a
        // sweep scheduling the catalogue's preparations waited commandMs twice for each avatar before close went on.
        assert.ok(performance.now() - started < 6_000, `close took ${Math.round(performance.now() - started)} ms`);
        assert.equal(count(app.lines, /^job store unreachable/, 'error'), 1, JSON.stringify(app.lines));
      } finally {
        redis.resume();
        await app.close();
        await redis.stop();
      }
    });

    it('closes within a bound while Redis is down, whether it was never up or was lost', { timeout: TEST_TIMEOUT_MS }, async () => {
      const neverUp = await startApp(adapter, `redis://127.0.0.1:${await freePort()}`);
      await assertUnavailable(() => listJobs(neverUp), 'GET list with no Redis');
      let started = performance.now();
      await neverUp.close();
      assert.ok(performance.now() - started < 5_000, `close took ${Math.round(performance.now() - started)} ms`);

      const redis = await redisOnFreePort();
      await redis.start();
      const lost = await startApp(adapter, redis.url);
      await lost.instance.ready();
      assert.equal((await timed(() => postJob(lost))).res.status, 201);
      await redis.stop();
      started = performance.now();
      await lost.close();
      assert.ok(performance.now() - started < 5_000, `close took ${Math.round(performance.now() - started)} ms`);
    });
  });
}

describe('example servers with Redis down', () => {
  for (const [adapter, script] of [
    ['express', 'examples/express-server.ts'],
    ['koa', 'examples/koa-server.ts'],
  ] as const) {
    it(`${adapter}: answers 503 and exits on SIGTERM`, { timeout: 90_000 }, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), `va-store-outage-example-${adapter}-`));
      const port = await freePort();
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: {
          ...process.env,
          PORT: String(port),
          REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
          VIRTUAL_ANCHOR_API_KEYS: KEY,
          VIRTUAL_ANCHOR_DATA_DIR: dataDir,
          ...Object.fromEntries(Object.entries({ FFMPEG_PATH: BINARIES.ffmpegPath, FFPROBE_PATH: BINARIES.ffprobePath }).filter(([, v]) => v)),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      try {
        await until('the example server to listen', async () => output.includes('listening on'), 60_000);
        const origin = `http://127.0.0.1:${port}`;
        // A request that needs the store, so the server is in the middle of the outage; its answer is checked last.
        const answered = assertUnavailable(() => request(origin).get('/v1/sourceSeparations').set('key', KEY), 'example server, GET list').then(
          () => undefined,
          (error: unknown) => error,
        );
        await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, ANSWER_WITHIN_MS))]);

        const signalled = performance.now();
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        const [code, signal] = await exited;
        clearTimeout(timer);
        assert.equal(signal, null, `killed by ${signal} after ${Math.round(performance.now() - signalled)} ms, output:\n${output}`);
        assert.equal(code, 0, output);
        assert.ok(performance.now() - signalled < 15_000, `exited ${Math.round(performance.now() - signalled)} ms after SIGTERM`);
        const failure = await answered;
        if (failure) throw failure;
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  }
});
