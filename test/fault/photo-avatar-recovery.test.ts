/**
 * Photo avatars never stay `pending` across a crash: records a dead process left in the shared stores are taken up
 * by the next instance (the same job recovery as every job, plus the photo-avatar sweep). Four avatars are left
 * behind: one whose preparation was still queued (`pending` job), one whose preparation was running when its
 * process died (`ongoing` job with a stale heartbeat), one whose job completed just before the crash but whose
 * avatar was not updated, and one whose job was never stored. A new instance on the same stores ends each of them.
 */
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ownerOf } from '../../src/core/auth.js';
import { prepareJobOf } from '../../src/core/avatars/photo-avatar-service.js';
import { PhotoAvatarSettler } from '../../src/core/avatars/photo-avatar-settler.js';
import type { JobService } from '../../src/core/jobs/job-service.js';
import type { PhotoAvatar } from '../../src/domain/avatar/photo-avatar.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { MemoryAvatarStore } from '../../src/storage/memory-avatar-store.js';
import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { MemoryIdempotencyStore } from '../../src/storage/memory-idempotency-store.js';
import { StoreUnavailableError } from '../../src/storage/store-unavailable-error.js';
import { makePhotoAvatar } from '../../src/testing/avatar-store-suite.js';
import { KEYS, SUITE_TIMEOUT_MS, makeApp } from '../helpers/apps.js';
import { waitFor, waitForAvatar } from '../helpers/checks.js';
import { useHarness } from '../helpers/harness.js';
import { FakeFaceDetector, FakePhotoRenderer, makePortraits } from '../helpers/photo-doubles.js';

const h = useHarness();
const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('photo avatars after a crash', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('a new instance on the same stores ends every pending avatar: queued, running (resumed), out of attempts, completed unseen, never scheduled', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-photo-recovery-'));
    dirs.push(dataDir);
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    const jobStore = new MemoryJobStore();
    const avatarStore = new MemoryAvatarStore();
    const owner = ownerOf(KEYS.a);
    const longAgo = new Date(Date.now() - 60_000).toISOString();

    // What the dead process left: four pending avatars with their photo in the blob store.
    const left = async (name: string, createdAt = new Date().toISOString()): Promise<PhotoAvatar> => {
      const photo = await blobs.put(createReadStream(h.path('image.png')), { owner, contentType: 'image/png' });
      const avatar = { ...makePhotoAvatar({ owner, name, createdAt }), photo };
      await avatarStore.create(avatar);
      return avatar;
    };
    const queued = await left('queued');
    await jobStore.create(prepareJobOf(queued));
    const running = await left('running');
    await jobStore.create(prepareJobOf(running));
    await jobStore.transition(running.uid, ['pending'], 'ongoing', { heartbeatAt: longAgo, attempt: 1 }, { attempt: 0 });
    const exhausted = await left('exhausted');
    await jobStore.create(prepareJobOf(exhausted));
    await jobStore.transition(exhausted.uid, ['pending'], 'ongoing', { heartbeatAt: longAgo, attempt: 3 }, { attempt: 0 });
    const unseen = await left('unseen');
    await jobStore.create(prepareJobOf(unseen));
    await jobStore.transition(unseen.uid, ['pending'], 'ongoing', { heartbeatAt: new Date().toISOString(), attempt: 1 }, { attempt: 0 });
    // Its assets were stored with the provisional expiry of every result.
    const made = (contentType: string) =>
      blobs.put(createReadStream(h.path('image.png')), { owner, contentType, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const assets = { video: await made('video/mp4'), preview: await made('image/png'), thumbnail: await made('image/png') };
    await jobStore.transition(unseen.uid, ['ongoing'], 'completed', { result: assets, completedAt: new Date().toISOString() }, { attempt: 1 });
    const unscheduled = await left('unscheduled', longAgo);

    const app = await makeApp('express', {
      dataDir,
      backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore(), avatarStore, blobStore: blobs, faceDetector: new FakeFaceDetector(), photoRenderer: new FakePhotoRenderer() },
      retention: { staleJobMs: 1_000, sweepIntervalMs: 100 },
    });
    try {
      const ended = (uid: string) => waitForAvatar(app, KEYS.a, uid);
      assert.equal((await ended(queued.uid)).thumbnailGenerationStatus, 'completed', 'a queued preparation runs');
      assert.equal((await ended(running.uid)).thumbnailGenerationStatus, 'completed', 'a preparation whose process died resumes');
      assert.equal((await jobStore.get(running.uid))?.attempt, 2, 'it resumed with its next attempt');
      const interrupted = await ended(exhausted.uid);
      assert.equal(interrupted.thumbnailGenerationStatus, 'error', 'a preparation stopped maxAttempts times ends in error');
      assert.equal((interrupted.errorReason as { code: string }).code, 'interrupted');
      assert.equal((await ended(unseen.uid)).thumbnailGenerationStatus, 'completed', 'a completed job is carried over');
      for (const blob of Object.values(assets)) assert.equal((await blobs.stat(blob.id))?.meta.expiresAt, undefined, 'its assets are kept');
      assert.equal((await ended(unscheduled.uid)).thumbnailGenerationStatus, 'completed', 'an avatar without a job gets one');
      assert.deepEqual(await avatarStore.pendingUids(), []);
    } finally {
      await app.close();
    }
  });

  it('a preparation running at shutdown stays pending and completes in the next start on the same stores', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-photo-restart-'));
    dirs.push(dataDir);
    await makePortraits(dataDir);
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    const jobStore = new MemoryJobStore();
    const avatarStore = new MemoryAvatarStore();
    const stores = { jobStore, idempotencyStore: new MemoryIdempotencyStore(), avatarStore, blobStore: blobs, faceDetector: new FakeFaceDetector() };
    // staleJobMs of a minute: the next start must not wait for the stopped job's heartbeat to go stale.
    const retention = { staleJobMs: 60_000, sweepIntervalMs: 100 };
    const stopping = new FakePhotoRenderer();
    stopping.hold();
    const first = await makeApp('express', { dataDir, backends: { ...stores, photoRenderer: stopping }, retention });
    let uid: string;
    try {
      const created = await first.http.post('/v2/avatar').set('key', KEYS.a).attach('file', join(dataDir, 'portrait.png'));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      uid = (created.body as { uid: string }).uid;
      await waitFor('the preparation to start', async () => ((await jobStore.get(uid))?.status === 'ongoing' && stopping.faces.length > 0) || undefined);
    } finally {
      await first.close();
    }
    const stopped = await jobStore.get(uid);
    assert.equal(stopped?.status, 'ongoing', 'shutdown does not end a preparation');
    assert.equal(stopped?.heartbeatAt, new Date(0).toISOString(), 'it is marked stopped');
    assert.equal((await avatarStore.get(uid))?.status, 'pending');

    const resumed = new FakePhotoRenderer();
    const second = await makeApp('express', { dataDir, backends: { ...stores, photoRenderer: resumed }, retention });
    try {
      const body = await waitForAvatar(second, KEYS.a, uid);
      assert.equal(body.thumbnailGenerationStatus, 'completed', JSON.stringify(body));
      assert.equal(resumed.faces.length, 1, 'the next start ran the preparation');
      assert.equal((await jobStore.get(uid))?.attempt, 2);
    } finally {
      await second.close();
    }
  });

  it('deleting a pending avatar leaves no file behind: when its job cannot be ended, and when its finished job was never settled', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-photo-delete-'));
    dirs.push(dataDir);
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    /** A job store whose transitions fail while `down` (an outage of the job store only). */
    class FlakyJobStore extends MemoryJobStore {
      down = false;
      override transition(...args: Parameters<MemoryJobStore['transition']>) {
        if (this.down) return Promise.reject(new StoreUnavailableError('the job store is unreachable (test)'));
        return super.transition(...args);
      }
    }
    const jobStore = new FlakyJobStore();
    const avatarStore = new MemoryAvatarStore();
    const owner = ownerOf(KEYS.a);
    const pendingAvatar = async (name: string) => {
      const photo = await blobs.put(createReadStream(h.path('image.png')), { owner, contentType: 'image/png' });
      const avatar = { ...makePhotoAvatar({ owner, name }), photo };
      await avatarStore.create(avatar);
      await jobStore.create(prepareJobOf(avatar));
      // Running elsewhere, with a fresh heartbeat: this instance neither runs nor recovers it.
      await jobStore.transition(avatar.uid, ['pending'], 'ongoing', { heartbeatAt: new Date().toISOString(), attempt: 1 }, { attempt: 0 });
      return avatar;
    };
    const running = await pendingAvatar('running');
    // Finished, its assets already kept (expiry cleared), but the avatar never settled: the settle's write failed.
    const unsettled = await pendingAvatar('unsettled');
    const kept = (contentType: string) => blobs.put(createReadStream(h.path('image.png')), { owner, contentType });
    const assets = { video: await kept('video/mp4'), preview: await kept('image/png'), thumbnail: await kept('image/png') };

    const app = await makeApp('express', {
      dataDir,
      backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore(), avatarStore, blobStore: blobs, faceDetector: new FakeFaceDetector(), photoRenderer: new FakePhotoRenderer() },
      // No sweep during the test: only the delete may clean up.
      retention: { staleJobMs: 600_000, sweepIntervalMs: 600_000 },
    });
    try {
      const statusOf = async (uid: string) => (await app.http.get(`/v2/avatar/${uid}`).set('key', KEYS.a)).body.thumbnailGenerationStatus as string;
      // It finishes after this instance's first sweep (which ran at start), as if its process died before settling.
      await jobStore.transition(unsettled.uid, ['ongoing'], 'completed', { result: assets, completedAt: new Date().toISOString() }, { attempt: 1 });
      assert.equal(await statusOf(unsettled.uid), 'pending', 'the finished job is not settled before the delete');
      jobStore.down = true;
      const res = await app.http.delete(`/v2/avatar/${running.uid}`).set('key', KEYS.a);
      assert.equal(res.status, 204, res.text);
      jobStore.down = false;
      assert.equal(await blobs.stat(running.photo.id), undefined, 'the photo is deleted although the job could not be ended');
      assert.equal((await app.http.delete(`/v2/avatar/${unsettled.uid}`).set('key', KEYS.a)).status, 204);
      assert.equal(await blobs.stat(unsettled.photo.id), undefined);
      for (const blob of Object.values(assets)) assert.equal(await blobs.stat(blob.id), undefined, 'what the finished preparation made is deleted');
    } finally {
      await app.close();
    }
  });

  it('one avatar the sweep cannot recover does not stop the pass for the others', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-photo-sweep-'));
    dirs.push(dataDir);
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    const avatarStore = new MemoryAvatarStore();
    const longAgo = new Date(Date.now() - 60_000).toISOString();
    const avatars = [makePhotoAvatar({ name: 'first', createdAt: longAgo }), makePhotoAvatar({ name: 'second', createdAt: longAgo })];
    for (const avatar of avatars) await avatarStore.create(avatar);
    const scheduled: string[] = [];
    // The first schedule fails (e.g. another process's sweep stored the same job a moment before).
    const jobs = {
      schedule: async (job: { uid: string }) => {
        if (scheduled.length === 0) {
          scheduled.push('failed');
          throw new Error('a job with this uid exists already');
        }
        scheduled.push(job.uid);
      },
    } as unknown as JobService;
    const lines: string[] = [];
    const logger = { debug() {}, info() {}, warn: (message: string) => void lines.push(message), error: (message: string) => void lines.push(message) };
    const settler = new PhotoAvatarSettler(avatarStore, new MemoryJobStore(), blobs, jobs, 1_000, logger);
    const pass = await settler.sweep();
    assert.deepEqual({ scheduled: pass.scheduled, failed: pass.failed }, { scheduled: 1, failed: 1 });
    assert.equal(scheduled.length, 2, 'the second avatar was still scheduled');
    assert.ok(lines.some((line) => /could not recover a photo avatar/.test(line)), JSON.stringify(lines));
  });

  it('a photo whose avatar record could not be stored keeps an expiry (no leak, and nothing deleted under an avatar that may exist); a stored one loses it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-photo-create-'));
    dirs.push(dataDir);
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    class FlakyAvatarStore extends MemoryAvatarStore {
      down = true;
      override create(avatar: PhotoAvatar) {
        if (this.down) return Promise.reject(new StoreUnavailableError('the avatar store is unreachable (test)'));
        return super.create(avatar);
      }
    }
    const avatarStore = new FlakyAvatarStore();
    const app = await makeApp('express', {
      dataDir,
      backends: { avatarStore, blobStore: blobs, faceDetector: new FakeFaceDetector(), photoRenderer: new FakePhotoRenderer() },
    });
    try {
      await makePortraits(dataDir);
      const refused = await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', join(dataDir, 'portrait.png'));
      assert.equal(refused.status, 503, refused.text);
      const later = new Date(Date.now() + 366 * 86_400_000);
      assert.equal((await blobs.expired(later)).length, 1, 'the received photo is still there, with an expiry');
      avatarStore.down = false;
      const created = await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', join(dataDir, 'portrait.png'));
      assert.equal(created.status, 201, created.text);
      const avatar = await avatarStore.get(created.body.uid);
      assert.equal((await blobs.stat(avatar!.photo.id))?.meta.expiresAt, undefined, 'the photo of a stored avatar is kept');
    } finally {
      await app.close();
    }
  });
});

