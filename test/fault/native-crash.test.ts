/**
 * Issue #20: a crash in native code (onnxruntime, canvas, image decoding) can never take the host down. The built-in
 * engines run that code in child processes; here such a child is killed in the middle of a job — SIGSEGV, as a
 * segfault in an addon does, and SIGKILL, as the kernel's OOM killer does — through HTTP on Express and Koa. The job
 * it was running ends in `error` with the reason kept, the job running beside it completes, the host answers every
 * request meanwhile, and the next job gets a fresh child. The host itself never loads the native addons.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { BINARIES, type FixtureName } from '../helpers/media.js';
import { descendants, engineChildren } from '../helpers/processes.js';

const h = useHarness();

/** Generates a tone of `seconds` into the fixtures' folder (served by the harness's file server). */
async function tone(name: string, seconds: number, rate: number): Promise<string> {
  const args = ['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=220:duration=${seconds}:sample_rate=${rate}`, '-af', 'volume=0.5'];
  await promisify(execFile)(BINARIES.ffmpegPath, [...args, join(h.fixtures.dir, name)]);
  return h.files.url(name as FixtureName);
}

/**
 * Polls GET `path` every 100 ms until stopped; resolves with the statuses seen and the slowest answer in ms. The
 * host must keep answering while its engine children crash.
 */
function keepAsking(app: TestApp, path: string, key: string): { stop(): Promise<{ statuses: number[]; slowestMs: number }> } {
  let running = true;
  const statuses: number[] = [];
  let slowestMs = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      statuses.push((await app.http.get(path).set('key', key)).status);
      slowestMs = Math.max(slowestMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { statuses, slowestMs };
    },
  };
}

/** The native addons' shared libraries mapped into this (the host's) process. */
async function nativeAddonsLoadedHere(): Promise<string[]> {
  const maps = await readFile('/proc/self/maps', 'utf8');
  const addons = new Set(maps.split('\n').map((line) => line.split(/\s+/)[5] ?? '').filter((path) => /onnxruntime|skia|napi-rs|canvas/i.test(path)));
  return [...addons];
}

for (const adapter of ADAPTERS) {
  describe(`a native crash in an engine child over ${adapter}`, { timeout: SUITE_TIMEOUT_MS * 2 }, () => {
    let app: TestApp;
    let longTone: string;
    let shortTone: string;
    let separationInput: string;
    before(async () => {
      longTone = await tone(`crash-long-${adapter}.wav`, 25, 16000);
      shortTone = await tone(`crash-short-${adapter}.wav`, 3, 16000);
      separationInput = await tone(`crash-separation-${adapter}.wav`, 90, 44100);
      app = await makeApp(adapter, { backends: { lipSync: undefined, separation: undefined } });
    });
    after(() => app?.close());

    it('SIGSEGV of the frame-drawing child fails its video only; a separation beside it completes; the host answers throughout', async () => {
      const avatarId = await firstAvatarId(app, KEYS.a);
      const beside = await createSeparation(app, KEYS.b, shortTone);
      const uid = await createVideo(app, KEYS.a, { audioUrl: longTone, avatarId });
      const asking = keepAsking(app, `/v2/2davatar/${uid}`, KEYS.a);
      // The frame child draws and has started its ffmpeg: the job is mid-render.
      const drawing = await waitFor(
        'the frame-drawing child to encode',
        async () => {
          const [child] = await engineChildren('frame drawing');
          if (!child) return undefined;
          return (await descendants(child.pid)).some((p) => p.comm.startsWith('ffmpeg')) ? child : undefined;
        },
        60_000,
        50,
      );
      process.kill(drawing.pid, 'SIGSEGV');
      const failed = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a, ['error', 'completed'], 30_000);
      assert.equal(failed.status, 'error', 'the crashed video ends in error');
      const reason = failed.errorReason as { code: string; message: string };
      assert.equal(reason.code, 'processing_failed');
      assert.match(reason.message, /frame drawing process was killed by SIGSEGV/);
      const separated = await waitForJob(app, `/v1/sourceSeparations/${beside}`, KEYS.b, ['error', 'completed'], 60_000);
      assert.equal(separated.status, 'completed', JSON.stringify(separated.errorReason));
      const { statuses, slowestMs } = await asking.stop();
      assert.ok(statuses.length > 0 && statuses.every((status) => status === 200), `the host answered ${JSON.stringify(statuses)}`);
      assert.ok(slowestMs < 2_000, `the slowest answer took ${Math.round(slowestMs)} ms`);
      // The next video gets a fresh child and completes.
      const next = await createVideo(app, KEYS.a, { audioUrl: shortTone, avatarId });
      assert.equal((await waitForJob(app, `/v2/2davatar/${next}`, KEYS.a, ['error', 'completed'], 60_000)).status, 'completed');
    });

    it('SIGKILL of the separation child fails its separation only; a video beside it completes', async () => {
      const avatarId = await firstAvatarId(app, KEYS.c);
      const uid = await createSeparation(app, KEYS.d, separationInput);
      const asking = keepAsking(app, `/v1/sourceSeparations/${uid}`, KEYS.d);
      await waitForJob(app, `/v1/sourceSeparations/${uid}`, KEYS.d, ['ongoing'], 30_000);
      const separating = await waitFor('the separation child to run', async () => (await engineChildren('source separation'))[0], 30_000, 50);
      const beside = await createVideo(app, KEYS.c, { audioUrl: shortTone, avatarId });
      process.kill(separating.pid, 'SIGKILL');
      const failed = await waitForJob(app, `/v1/sourceSeparations/${uid}`, KEYS.d, ['error', 'completed'], 30_000);
      assert.equal(failed.status, 'error', 'the killed separation ends in error');
      assert.match((failed.errorReason as { message: string }).message, /source separation process was killed by SIGKILL/);
      const video = await waitForJob(app, `/v2/2davatar/${beside}`, KEYS.c, ['error', 'completed'], 60_000);
      assert.equal(video.status, 'completed', JSON.stringify(video.errorReason));
      const { statuses } = await asking.stop();
      assert.ok(statuses.every((status) => status === 200), `the host answered ${JSON.stringify(statuses)}`);
      const next = await createSeparation(app, KEYS.d, shortTone);
      assert.equal((await waitForJob(app, `/v1/sourceSeparations/${next}`, KEYS.d, ['error', 'completed'], 60_000)).status, 'completed');
    });

    it('the host process never loaded onnxruntime or the canvas', async () => {
      assert.deepEqual(await nativeAddonsLoadedHere(), []);
    });
  });
}
