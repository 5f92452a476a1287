/**
 * Contract of what happens around requests: the per-key request limit of /v1, the job state machine under
 * races, recovery of jobs left by a dead process, retention, mounting under a path, and instance isolation.
 * Runs once per host framework.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryIdempotencyStore, MemoryJobStore, TOKENS, type AvatarVideoJob, type JobStore } from '../../src/index.js';
import { ownerOf } from '../../src/core/auth.js';
import { avatarUid } from '../../src/core/avatars/avatar-uid.js';
import { sourcesOf, TRANSITIONS } from '../../src/domain/state-machine.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type AppOptions, type TestApp } from '../helpers/apps.js';
import { assertError, download, waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId, upload } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { RecordingBlobStore } from '../helpers/recording-blob-store.js';
import { slowUpload } from '../helpers/slow-upload.js';

const h = useHarness();

const AVA = avatarUid('ava');

/** A stored avatar video job as a previous process would have left it. */
function seededJob(overrides: Partial<AvatarVideoJob>, audio: AvatarVideoJob['input']['audio'], ageMs: number): AvatarVideoJob {
  const at = new Date(Date.now() - ageMs).toISOString();
  return {
    kind: 'avatarVideo',
    uid: randomUUID(),
    owner: ownerOf(KEYS.a),
    status: 'pending',
    createdAt: at,
    updatedAt: at,
    input: { audioUrl: 'http://example.com/speech.mp3', avatarId: AVA, dangerousFlag: false, audio, durationSec: 3 },
    ...overrides,
  };
}

describe('job state machine', () => {
  it('allows only pending → ongoing → completed and non-final → error', () => {
    assert.deepEqual(TRANSITIONS, { pending: ['ongoing', 'error'], ongoing: ['ongoing', 'completed', 'error'], completed: [], error: [] });
    assert.deepEqual(sourcesOf('completed'), ['ongoing']);
    assert.deepEqual(sourcesOf('error').sort(), ['ongoing', 'pending']);
    assert.deepEqual(sourcesOf('ongoing'), ['pending', 'ongoing']);
  });
});

for (const adapter of ADAPTERS) {
  describe(`life-cycle contract over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    describe('per-key request limit on /v1', () => {
      let app: TestApp;
      before(async () => {
        app = await makeApp(adapter, { concurrency: { v1RequestsPerKey: 1, maxQueuedRequestsPerKey: 0 } });
      });
      after(() => app.close());

      it('answers 429 to a second request of a key while its first is in flight; other keys and /v2 go on', async () => {
        const data = await readFile(h.path('speech.mp3'));
        const first = slowUpload(app.origin, '/v1/uploads', KEYS.a, data);
        const second = slowUpload(app.origin, '/v1/uploads', KEYS.a, data);
        try {
          // Exactly one of the two simultaneous uploads holds the slot; the other is refused at once.
          const refused = await Promise.race([
            first.response.then((r) => ({ r, which: 'first' as const })),
            second.response.then((r) => ({ r, which: 'second' as const })),
            sleep(5000).then(() => assert.fail('neither of two simultaneous requests of one key was refused within 5 s')),
          ]);
          assert.equal(refused.r.status, 429, JSON.stringify(refused.r.body));
          assert.equal((refused.r.body as { error: { code: string } }).error.code, 'too_many_requests');
          assert.equal(refused.r.headers['retry-after'], '1');
          const holder = refused.which === 'first' ? second : first;
          // While the slot is held: the same key is refused on /v1, another key is not, and /v2 has no limit.
          assertError(await app.http.get('/v1/sourceSeparations').set('key', KEYS.a), 429, 'too_many_requests');
          assert.equal((await app.http.get('/v1/sourceSeparations').set('key', KEYS.b)).status, 200);
          assert.equal((await app.http.get('/v2/2davatar').set('key', KEYS.a)).status, 200);
          holder.finish();
          const done = await holder.response;
          assert.equal(done.status, 201, JSON.stringify(done.body));
        } finally {
          first.finish();
          second.finish();
        }
        // The slot is free again.
        assert.equal((await app.http.get('/v1/sourceSeparations').set('key', KEYS.a)).status, 200);
      });
    });

    describe('late writers', () => {
      let app: TestApp;
      let blobs: RecordingBlobStore;
      let store: JobStore;
      before(async () => {
        const dataDir = await mkdtemp(join(tmpdir(), `va-contract-late-${adapter}-`));
        blobs = new RecordingBlobStore(dataDir);
        app = await makeApp(adapter, { dataDir, backends: { blobStore: blobs } });
        store = app.instance.container.resolve<JobStore>(TOKENS.JobStore);
      });
      after(async () => {
        await app.close();
        await rm(blobs.dir, { recursive: true, force: true });
      });

      it('a worker whose job was moved to error while it ran is stopped, or its late result dropped; the job stays in error', async () => {
        const startedBefore = app.lipSync.calls;
        const release = app.lipSync.hold();
        let uid: string;
        try {
          uid = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: AVA });
          await app.lipSync.started(startedBefore + 1);
          // Another process (its recovery, say) ends the job while this worker still renders.
          const ended = await store.transition(uid, sourcesOf('error'), 'error', { failure: { code: 'interrupted', message: 'ended by the test' } });
          assert.equal(ended?.status, 'error');
        } finally {
          release();
        }
        const from = blobs.events.length;
        // The runner hears of the end from its first progress write (or an announcement) and aborts the engine; an
        // engine that finishes anyway has its result stored and then deleted, as the compare-and-set to `completed`
        // loses. Either way nothing of it survives.
        await app.lipSync.finished(startedBefore + 1);
        await new Promise((resolve) => setTimeout(resolve, 500));
        for (const put of blobs.events.slice(from).filter((e) => e.op === 'put' && e.contentType === 'video/mp4')) {
          await blobs.next(from, (e) => e.op === 'delete' && e.id === put.id, 'the late result to be deleted');
        }
        const job = await app.http.get(`/v2/2davatar/${uid}`).set('key', KEYS.a);
        assert.equal(job.body.status, 'error');
        assert.deepEqual(job.body.errorReason, { code: 'interrupted', message: 'ended by the test' });
        assert.equal(job.body.path, '');
      });

      it('the store refuses to move a final job anywhere', async () => {
        const completed = await createVideo(app, KEYS.b, { audioUrl: h.url('speech.mp3'), avatarId: AVA });
        const failed = await createVideo(app, KEYS.b, { audioUrl: h.url('speech.mp3'), avatarId: AVA, dangerousFlag: true });
        const before = {
          completed: await waitForJob(app, `/v2/2davatar/${completed}`, KEYS.b, ['completed']),
          failed: await waitForJob(app, `/v2/2davatar/${failed}`, KEYS.b, ['error']),
        };
        assert.equal(await store.transition(failed, sourcesOf('completed'), 'completed'), undefined);
        assert.equal(await store.transition(failed, ['pending', 'ongoing'], 'ongoing'), undefined);
        assert.equal(await store.transition(completed, sourcesOf('error'), 'error', { failure: { code: 'x', message: 'x' } }), undefined);
        assert.equal(await store.patch(completed, ['pending', 'ongoing'], { progress: { done: 1, total: 1, unit: 'x' } }), false);
        const after = {
          completed: (await app.http.get(`/v2/2davatar/${completed}`).set('key', KEYS.b)).body,
          failed: (await app.http.get(`/v2/2davatar/${failed}`).set('key', KEYS.b)).body,
        };
        for (const which of ['completed', 'failed'] as const) {
          assert.equal(after[which].status, before[which].status);
          assert.equal(after[which].updatedAt, before[which].updatedAt);
          assert.deepEqual(after[which].errorReason, before[which].errorReason);
        }
      });
    });

    describe('recovery at start-up', () => {
      it('fails stale ongoing jobs as interrupted, ends overdue dangerous jobs, runs pending ones, spares live ones', async () => {
        const dataDir = await mkdtemp(join(tmpdir(), `va-contract-recovery-${adapter}-`));
        try {
          const blobStore = new FsBlobStore(dataDir);
          const audio = await blobStore.put(createReadStream(h.path('speech.mp3')), { owner: ownerOf(KEYS.a), contentType: 'audio/mpeg' });
          const hour = 3_600_000;
          const stale = seededJob({ status: 'ongoing', heartbeatAt: new Date(Date.now() - hour).toISOString() }, audio, hour);
          const live = seededJob({ status: 'ongoing', heartbeatAt: new Date().toISOString() }, audio, 1000);
          const pending = seededJob({}, audio, 2000);
          const dangerous = seededJob({ status: 'ongoing', heartbeatAt: new Date().toISOString() }, audio, hour);
          dangerous.input.dangerousFlag = true;
          const jobStore = new MemoryJobStore();
          for (const job of [stale, live, pending, dangerous]) await jobStore.create(job);

          const app = await makeApp(adapter, { dataDir, backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore() }, retention: { staleJobMs: 30_000, sweepIntervalMs: 100 } });
          try {
            const get = (uid: string) => waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a);
            const interrupted = await get(stale.uid);
            assert.equal(interrupted.status, 'error');
            assert.equal((interrupted.errorReason as { code: string }).code, 'interrupted');
            const overdue = await get(dangerous.uid);
            assert.equal((overdue.errorReason as { code: string }).code, 'dangerous_flag');
            const ran = await get(pending.uid);
            assert.equal(ran.status, 'completed', JSON.stringify(ran));
            assert.equal((await download(String(ran.path))).status, 200);
            await sleep(300); // a few more sweeps
            const spared = await app.http.get(`/v2/2davatar/${live.uid}`).set('key', KEYS.a);
            assert.equal(spared.body.status, 'ongoing');
          } finally {
            await app.close();
          }
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    });

    describe('retention', () => {
      let app: TestApp;
      before(async () => {
        app = await makeApp(adapter, { retention: { resultsMs: 700, uploadsMs: 700, sweepIntervalMs: 100 } });
      });
      after(() => app.close());

      it('deletes results after resultsMs (their links answer 410) and uploads after uploadsMs (404, no longer an input)', async () => {
        const [results, uploads] = await Promise.allSettled([
          (async () => {
            const uid = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: AVA });
            const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a);
            assert.equal(job.status, 'completed');
            assert.equal((await download(String(job.path))).status, 200);
            const gone = await waitFor('the result to be swept', async () => {
              const res = await download(String(job.path));
              return res.status === 200 ? undefined : res;
            }, 10_000, 100);
            assert.equal(gone.status, 410);
            assert.equal(JSON.parse(gone.body.toString()).error.code, 'file_deleted');
            assert.equal((await app.http.get(`/v2/2davatar/${uid}`).set('key', KEYS.a)).body.status, 'completed');
          })(),
          (async () => {
            const file = await upload(app, KEYS.b, h.path('speech.mp3'));
            assert.equal((await app.http.get(`/v1/uploads/${file.uid}`).set('key', KEYS.b)).status, 200);
            await waitFor('the upload to be swept', async () => {
              const res = await app.http.get(`/v1/uploads/${file.uid}`).set('key', KEYS.b);
              return res.status === 404 ? res : undefined;
            }, 10_000, 100);
            const res = await app.http.post('/v2/2davatar').set('key', KEYS.b).send({ audioUrl: file.url, avatarId: AVA });
            assertError(res, 400, 'not_found', ['body.audioUrl']);
          })(),
        ]);
        for (const outcome of [results, uploads]) if (outcome.status === 'rejected') throw outcome.reason;
      });
    });

    describe('link lifetime', () => {
      it('a signed link answers 410 link_expired after linkTtlMs; a fresh fetch hands out a working one', async () => {
        const app = await makeApp(adapter, { retention: { linkTtlMs: 300 } });
        try {
          const avatar = async () => (await app.http.get(`/v2/avatar/${AVA}`).set('key', KEYS.a)).body as { thumbnailPath: string };
          const old = await avatar();
          assert.equal((await download(old.thumbnailPath)).status, 200);
          const expires = Number(new URL(old.thumbnailPath).searchParams.get('expires'));
          await sleep(Math.max(0, expires - Date.now()) + 50);
          const expired = await download(old.thumbnailPath);
          assert.equal(expired.status, 410);
          assert.equal(JSON.parse(expired.body.toString()).error.code, 'link_expired');
          assert.equal((await download((await avatar()).thumbnailPath)).status, 200);
        } finally {
          await app.close();
        }
      });
    });

    describe('shutdown and restart', () => {
      it('close() ends running jobs as error (shutdown) and leaves queued ones pending; a restart on the same store runs them', async () => {
        const dataDir = await mkdtemp(join(tmpdir(), `va-contract-restart-${adapter}-`));
        const jobStore = new MemoryJobStore();
        try {
          const first = await makeApp(adapter, { dataDir, backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore() } });
          let running: string;
          let queued: string;
          try {
            first.lipSync.hold();
            running = await createVideo(first, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: AVA });
            queued = await createVideo(first, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: AVA });
            await first.lipSync.started(1);
            assert.equal((await jobStore.get(queued))?.status, 'pending');
          } finally {
            await first.close();
          }
          const ended = await jobStore.get(running);
          assert.equal(ended?.status, 'error');
          assert.equal(ended?.failure?.code, 'shutdown');
          assert.equal((await jobStore.get(queued))?.status, 'pending');

          const second = await makeApp(adapter, { dataDir, backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore() } });
          try {
            const job = await waitForJob(second, `/v2/2davatar/${queued}`, KEYS.a);
            assert.equal(job.status, 'completed', JSON.stringify(job));
            assert.equal((await download(String(job.path))).status, 200);
            const still = await second.http.get(`/v2/2davatar/${running}`).set('key', KEYS.a);
            assert.equal(still.body.status, 'error');
            assert.equal(still.body.errorReason.code, 'shutdown');
          } finally {
            await second.close();
          }
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    });

    describe('dangerousFlag across a restart', () => {
      it('a dangerous job left ongoing by a stopped instance still ends in error when its delay is over', async () => {
        const dataDir = await mkdtemp(join(tmpdir(), `va-contract-dangerous-${adapter}-`));
        const jobStore = new MemoryJobStore();
        const delayMs = 1000;
        try {
          const first = await makeApp(adapter, { dataDir, dangerousFlagDelayMs: delayMs, backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore() } });
          let uid: string;
          try {
            uid = await createVideo(first, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: AVA, dangerousFlag: true });
            await waitFor('the dangerous job to start', async () => ((await jobStore.get(uid))?.status === 'ongoing' ? true : undefined));
          } finally {
            await first.close();
          }
          const left = await jobStore.get(uid);
          assert.equal(left?.status, 'ongoing');
          // Default sweep interval (60 s): the deadline must not wait for the next sweep.
          const second = await makeApp(adapter, { dataDir, dangerousFlagDelayMs: delayMs, backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore() } });
          try {
            const deadline = Date.parse(left!.createdAt) + delayMs;
            const job = await waitForJob(second, `/v2/2davatar/${uid}`, KEYS.a, ['error'], Math.max(0, deadline - Date.now()) + 1200);
            assert.equal((job.errorReason as { code: string }).code, 'dangerous_flag');
          } finally {
            await second.close();
          }
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    });

    describe('host body parser', () => {
      it('jobs are created the same behind a JSON body parser', async () => {
        const app = await makeApp(adapter, { jsonBodyParser: true });
        try {
          const video = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: AVA });
          const separation = await createSeparation(app, KEYS.a, h.url('speech.mp3'));
          const missing = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ avatarId: AVA });
          assertError(missing, 400, 'validation_failed', ['body.audioUrl']);
          const text = await app.http.post('/v2/2davatar').set('key', KEYS.a).set('content-type', 'text/plain').send('x');
          assertError(text, 415, 'unsupported_media_type');
          assert.equal((await app.http.post('/v1/uploads').set('key', KEYS.a).attach('file', h.path('speech.mp3'))).status, 201);
          assert.equal((await waitForJob(app, `/v2/2davatar/${video}`, KEYS.a)).status, 'completed');
          assert.equal((await waitForJob(app, `/v1/sourceSeparations/${separation}`, KEYS.a)).status, 'completed');
        } finally {
          await app.close();
        }
      });
    });

    describe('mounting under a path', () => {
      const variants: { name: string; options: AppOptions; prefix: string }[] =
        adapter === 'express'
          ? [
              { name: "app.use('/media', …)", options: { mountPath: '/media' }, prefix: '/media' },
              { name: "basePath '/api'", options: { basePath: '/api' }, prefix: '/api' },
              { name: "app.use('/media', …) with basePath '/api'", options: { mountPath: '/media', basePath: '/api' }, prefix: '/media/api' },
            ]
          : [{ name: "basePath '/media'", options: { basePath: '/media' }, prefix: '/media' }];
      for (const { name, options, prefix } of variants) {
        it(`${name}: routes and links live under ${prefix}`, async () => {
          const app = await makeApp(adapter, options);
          try {
            assert.equal((await app.http.get('/v2/avatar').set('key', KEYS.a)).status, 404);
            const avatars = await app.http.get(`${prefix}/v2/avatar`).set('key', KEYS.a);
            assert.equal(avatars.status, 200);
            assert.ok(avatars.body.data[0].path.startsWith(`${app.origin}${prefix}/files/`), avatars.body.data[0].path);
            const openapi = await app.http.get(`${prefix}/v1/openapi.json`);
            assert.equal(openapi.body.servers[0].url, `${app.origin}${prefix}`);
            const file = await app.http.post(`${prefix}/v1/uploads`).set('key', KEYS.a).attach('file', h.path('speech.mp3'));
            assert.equal(file.body.url, `${app.origin}${prefix}/v1/uploads/${file.body.uid}`);
            const created = await app.http.post(`${prefix}/v2/2davatar`).set('key', KEYS.a).send({ audioUrl: file.body.url, avatarId: AVA });
            assert.equal(created.status, 201, created.text);
            const job = await waitForJob(app, `${prefix}/v2/2davatar/${created.body[0].uid}`, KEYS.a);
            assert.equal(job.status, 'completed');
            assert.ok(String(job.path).startsWith(`${app.origin}${prefix}/files/`), String(job.path));
            assert.equal((await download(String(job.path))).status, 200);
          } finally {
            await app.close();
          }
        });
      }
    });

    describe('two instances in one process', () => {
      it('share nothing: jobs, separations and uploads of one are unknown to the other, same key', async () => {
        const [one, two] = await Promise.all([makeApp(adapter), makeApp(adapter)]);
        try {
          assert.equal(await firstAvatarId(one, KEYS.a), await firstAvatarId(two, KEYS.a));
          const video = await createVideo(one, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: AVA, dangerousFlag: true });
          const separation = await createSeparation(one, KEYS.a, h.url('speech.mp3'));
          const file = await upload(one, KEYS.a, h.path('speech.mp3'));
          assertError(await two.http.get(`/v2/2davatar/${video}`).set('key', KEYS.a), 404, 'not_found');
          assertError(await two.http.get(`/v1/sourceSeparations/${separation}`).set('key', KEYS.a), 404, 'not_found');
          assertError(await two.http.get(`/v1/uploads/${file.uid}`).set('key', KEYS.a), 404, 'not_found');
          assert.equal((await two.http.get('/v2/2davatar').set('key', KEYS.a)).body.total, 0);
          const reuse = await two.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: file.url, avatarId: AVA });
          assertError(reuse, 400, 'not_found', ['body.audioUrl']);
          assert.notEqual(one.instance.container, two.instance.container);
          assert.notEqual(one.instance.container.resolve(TOKENS.JobStore), two.instance.container.resolve(TOKENS.JobStore));
          await waitForJob(one, `/v1/sourceSeparations/${separation}`, KEYS.a);
        } finally {
          await Promise.all([one.close(), two.close()]);
        }
      });
    });
  });
}
