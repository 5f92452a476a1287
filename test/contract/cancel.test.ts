/**
 * Cancel: POST /v2/2davatar/{id}/cancel and /v1/sourceSeparations/{id}/cancel end a pending or ongoing job in
 * `error` (code `canceled`) and stop its engine, ffmpeg children included; a finished job answers 409, another
 * key's or an unknown job 404. Runs once per host framework.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { RedisJobStore } from '../../src/index.js';
import { SHARED_REDIS_URL } from '../helpers/redis-server.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { BINARIES, type FixtureName } from '../helpers/media.js';
import { ffmpegDescendants } from '../helpers/processes.js';

const h = useHarness();

for (const adapter of ADAPTERS) {
  describe(`cancel over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let avatarId: string;
    before(async () => {
      app = await makeApp(adapter, { concurrency: { jobsPerKey: 1 } });
      avatarId = await firstAvatarId(app, KEYS.a);
    });
    after(() => app?.close());

    it('cancels an ongoing and a pending job; the pending one never runs; a finished one answers 409', async () => {
      const release = app.lipSync.hold();
      const callsBefore = app.lipSync.calls;
      const running = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId });
      await app.lipSync.started(callsBefore + 1);
      const waiting = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId });
      const endedBefore = app.lipSync.ended;

      // The second job waits for the first (one job per key at a time): cancel it while it is pending.
      assert.equal((await app.http.get(`/v2/2davatar/${waiting}`).set('key', KEYS.a)).body.status, 'pending');
      const pending = await app.http.post(`/v2/2davatar/${waiting}/cancel`).set('key', KEYS.a);
      assert.equal(pending.status, 200, pending.text);
      assert.equal(pending.body.status, 'error');
      assert.equal(pending.body.errorReason.code, 'canceled');

      const started = Date.now();
      const res = await app.http.post(`/v2/2davatar/${running}/cancel`).set('key', KEYS.a);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.uid, running);
      assert.equal(res.body.status, 'error');
      assert.equal(res.body.errorReason.code, 'canceled');
      assert.equal(res.body.path, '');
      await app.lipSync.finished(endedBefore + 1);
      assert.ok(Date.now() - started < 2_000, `the engine stopped after ${Date.now() - started} ms`);

      release();
      const later = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId });
      assert.equal((await waitForJob(app, `/v2/2davatar/${later}`, KEYS.a)).status, 'completed');
      assert.equal(app.lipSync.calls, callsBefore + 2, 'the canceled pending job never reached the engine');
      assert.equal((await app.http.get(`/v2/2davatar/${waiting}`).set('key', KEYS.a)).body.status, 'error');

      assertError(await app.http.post(`/v2/2davatar/${later}/cancel`).set('key', KEYS.a), 409, 'conflict');
      assertError(await app.http.post(`/v2/2davatar/${running}/cancel`).set('key', KEYS.a), 409, 'conflict');
    });

    it('answers 404 for another key’s job and an unknown one, on both families', async () => {
      const release = app.separation.hold();
      try {
        const uid = await createSeparation(app, KEYS.b, h.url('speech.wav'));
        assertError(await app.http.post(`/v1/sourceSeparations/${uid}/cancel`).set('key', KEYS.c), 404, 'not_found');
        assertError(await app.http.post('/v2/2davatar/00000000-0000-4000-8000-000000000000/cancel').set('key', KEYS.a), 404, 'not_found');
        assertError(await app.http.post(`/v2/2davatar/${uid}/cancel`).set('key', KEYS.b), 404, 'not_found');
        const res = await app.http.post(`/v1/sourceSeparations/${uid}/cancel`).set('key', KEYS.b);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([res.body.status, res.body.errorReason.code, res.body.taskId !== undefined], ['error', 'canceled', true]);
      } finally {
        release();
      }
    });
  });

  describe(`cancel from another instance over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it('stops the engine of the instance running the job within 1 s (its runner hears the announcement; its heartbeat is seconds away)', async () => {
      const namespace = `test-cancel-${randomUUID()}`;
      const shared = { redis: SHARED_REDIS_URL, redisNamespace: namespace };
      const runner = await makeApp(adapter, shared);
      const other = await makeApp(adapter, shared);
      try {
        const release = runner.lipSync.hold();
        const avatarId = await firstAvatarId(runner, KEYS.b);
        const uid = await createVideo(runner, KEYS.b, { audioUrl: h.url('speech.wav'), avatarId });
        await runner.lipSync.started(1);
        const started = Date.now();
        const res = await other.http.post(`/v2/2davatar/${uid}/cancel`).set('key', KEYS.b);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.errorReason.code, 'canceled');
        await runner.lipSync.finished(1);
        assert.ok(Date.now() - started < 1_000, `the engine stopped after ${Date.now() - started} ms`);
        release();
        assert.equal((await runner.http.get(`/v2/2davatar/${uid}`).set('key', KEYS.b)).body.errorReason.code, 'canceled');
      } finally {
        await runner.close();
        await other.close();
        const store = new RedisJobStore({ url: SHARED_REDIS_URL, namespace });
        await store.clear();
        await store.close();
      }
    });
  });

  describe(`cancel of the built-in lip-sync engine over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    before(async () => {
      // 25 s of speech-like tone: long enough that the real engine is still rendering when it is canceled.
      const name = 'cancel-25s.wav';
      await promisify(execFile)(BINARIES.ffmpegPath, ['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=220:duration=25:sample_rate=16000', '-af', 'volume=0.5', join(h.fixtures.dir, name)]);
      app = await makeApp(adapter, { backends: { lipSync: undefined } });
    });
    after(() => app?.close());

    it('ends the job in error/canceled within 2 s and leaves no ffmpeg child running', async () => {
      const avatarId = await firstAvatarId(app, KEYS.d);
      const uid = await createVideo(app, KEYS.d, { audioUrl: h.files.url('cancel-25s.wav' as FixtureName), avatarId });
      await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.d, ['ongoing'], 30_000);
      await waitFor('the engine to start ffmpeg', async () => ((await ffmpegDescendants()).length > 0 ? true : undefined), 30_000, 50);
      const started = Date.now();
      const res = await app.http.post(`/v2/2davatar/${uid}/cancel`).set('key', KEYS.d);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.errorReason.code, 'canceled');
      const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.d, ['error'], 2_000);
      assert.equal((job.errorReason as { code: string }).code, 'canceled');
      await waitFor('the ffmpeg children to exit', async () => ((await ffmpegDescendants()).length === 0 ? true : undefined), 2_000, 50);
      assert.ok(Date.now() - started < 2_500, `stopped after ${Date.now() - started} ms`);
    });
  });
}
