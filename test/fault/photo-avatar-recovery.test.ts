/**
 * Photo avatars never stay `pending` across a crash: an avatar's state is its `avatarPrepare` job's, and the jobs a
 * dead process left in the shared stores are taken up by the next instance (the same recovery as every job). Five
 * avatars are left behind: one whose preparation was still queued (`pending` job), one whose preparation was running
 * when its process died (`ongoing` job with a stale heartbeat), one stopped `maxAttempts` times, one whose job
 * completed just before the crash, and one whose job was never stored. A new instance on the same stores ends each.
 */
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ownerOf } from '../../src/core/auth.js';
import { OwnedAvatars, preparationOf } from '../../src/core/avatars/owned-avatars.js';
import { preparedAssetIds } from '../../src/core/kinds/avatar-prepare/index.js';
import type { Job } from '../../src/domain/job.js';
import type { OwnedAvatar } from '../../src/domain/avatar/owned-avatar.js';
import type { PhotoAvatar } from '../../src/domain/avatar/photo-avatar.js';
import { silentLogger } from '../../src/domain/logger.js';
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

/** A job store whose every call fails while `down` (an outage of the job store only). */
class FlakyJobStore extends MemoryJobStore {
  down = false;
  private check(): void {
    if (this.down) throw new StoreUnavailableError('the job store is unreachable (test)');
  }
  override async get(...args: Parameters<MemoryJobStore['get']>) {
    this.check();
    return super.get(...args);
  }
  override async transition(...args: Parameters<MemoryJobStore['transition']>) {
    this.check();
    return super.transition(...args);
  }
  override async patch(...args: Parameters<MemoryJobStore['patch']>) {
    this.check();
    return super.patch(...args);
  }
  override async delete(uid: string) {
    this.check();
    return super.delete(uid);
  }
}

/**
 * A fresh data folder with the stores a process left there (files on disk, jobs and avatars in memory), key a's
 * owner, and `next`: the instance that starts on them (staleJobMs 1 s, a sweep every 100 ms).
 */
async function storesOfDeadProcess(prefix: string) {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dataDir);
  const stores = { blobs: new FsBlobStore(join(dataDir, 'blobs')), jobStore: new MemoryJobStore(), avatarStore: new MemoryAvatarStore() };
  const next = (renderer: FakePhotoRenderer) =>
    makeApp('express', {
      dataDir,
      backends: { jobStore: stores.jobStore, avatarStore: stores.avatarStore, blobStore: stores.blobs, idempotencyStore: new MemoryIdempotencyStore(), faceDetector: new FakeFaceDetector(), photoRenderer: renderer },
      retention: { staleJobMs: 1_000, sweepIntervalMs: 100 },
    });
  return { ...stores, owner: ownerOf(KEYS.a), next };
}

describe('photo avatars after a crash', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('a new instance on the same stores ends every pending avatar: queued, running (resumed), out of attempts, never scheduled; a job completed before the crash is its avatar\'s state', async () => {
    const { blobs, jobStore, avatarStore, owner, next } = await storesOfDeadProcess('va-photo-recovery-');
    const longAgo = new Date(Date.now() - 60_000).toISOString();

    // What the dead process left: five avatars with their photo in the blob store.
    const left = async (name: string, createdAt = new Date().toISOString()): Promise<OwnedAvatar> => {
      const photo = await blobs.put(createReadStream(h.path('image.png')), { owner, contentType: 'image/png' });
      const avatar = { ...makePhotoAvatar({ owner, name, createdAt }), photo };
      await avatarStore.create(avatar);
      return avatar;
    };
    const queued = await left('queued');
    await jobStore.create(preparationOf(queued));
    const running = await left('running');
    await jobStore.create(preparationOf(running));
    await jobStore.transition(running.uid, ['pending'], 'ongoing', { heartbeatAt: longAgo, attempt: 1 }, { attempt: 0 });
    const exhausted = await left('exhausted');
    await jobStore.create(preparationOf(exhausted));
    await jobStore.transition(exhausted.uid, ['pending'], 'ongoing', { heartbeatAt: longAgo, attempt: 3 }, { attempt: 0 });
    const finished = await left('finished');
    await jobStore.create(preparationOf(finished));
    await jobStore.transition(finished.uid, ['pending'], 'ongoing', { heartbeatAt: new Date().toISOString(), attempt: 1 }, { attempt: 0 });
    // Its assets were stored under their fixed ids, kept (no expiry), and the job completed: then the process died.
    const ids = preparedAssetIds(preparationOf(finished));
    const made = (id: string, contentType: string) => blobs.put(createReadStream(h.path('image.png')), { owner, contentType }, { id });
    const assets = { video: await made(ids.video, 'video/mp4'), preview: await made(ids.preview, 'image/png'), thumbnail: await made(ids.thumbnail, 'image/png') };
    await jobStore.transition(finished.uid, ['ongoing'], 'completed', { result: assets, completedAt: new Date().toISOString() }, { attempt: 1 });
    const unscheduled = await left('unscheduled', longAgo);

    const renderer = new FakePhotoRenderer();
    const app = await next(renderer);
    try {
      const ended = (uid: string) => waitForAvatar(app, KEYS.a, uid);
      assert.equal((await ended(queued.uid)).thumbnailGenerationStatus, 'completed', 'a queued preparation runs');
      assert.equal((await ended(running.uid)).thumbnailGenerationStatus, 'completed', 'a preparation whose process died resumes');
      assert.equal((await jobStore.get(running.uid))?.attempt, 2, 'it resumed with its next attempt');
      const interrupted = await ended(exhausted.uid);
      assert.equal(interrupted.thumbnailGenerationStatus, 'error', 'a preparation stopped maxAttempts times ends in error');
      assert.equal((interrupted.errorReason as { code: string }).code, 'interrupted');
      const done = await ended(finished.uid);
      assert.equal(done.thumbnailGenerationStatus, 'completed', 'a completed job is its avatar\'s state');
      assert.match(String(done.thumbnailPath), /\/files\//);
      assert.equal(renderer.faces.filter((face) => face.imagePath.includes((finished as PhotoAvatar).photo.id)).length, 0, 'it is not made again');
      assert.equal((await ended(unscheduled.uid)).thumbnailGenerationStatus, 'completed', 'an avatar without a job gets one');
      for (const avatar of [queued, running, exhausted, finished, unscheduled]) {
        const job = await jobStore.get(avatar.uid);
        assert.equal(job?.kept, true, 'the preparation record is kept while its avatar lives');
        for (const blob of Object.values(job?.result ?? {})) assert.equal((await blobs.stat(blob.id))?.meta.expiresAt, undefined, 'its assets are kept');
      }
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

  it('deleting an avatar leaves no file and no record behind: a completed one, and one whose running preparation could not be ended (the job store was down), which drops what it made', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-photo-delete-'));
    dirs.push(dataDir);
    await makePortraits(dataDir);
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    const jobStore = new FlakyJobStore();
    const renderer = new FakePhotoRenderer();
    const app = await makeApp('express', {
      dataDir,
      backends: { jobStore, idempotencyStore: new MemoryIdempotencyStore(), blobStore: blobs, faceDetector: new FakeFaceDetector(), photoRenderer: renderer },
      // No sweep during the test: only the delete and the run may clean up.
      retention: { staleJobMs: 600_000, sweepIntervalMs: 600_000 },
    });
    try {
      const create = async () => {
        const created = await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', join(dataDir, 'portrait.png'));
        assert.equal(created.status, 201, created.text);
        return created.body.uid as string;
      };
      /** The blobs left of an avatar: its photo and its assets. */
      const leftOf = async (job: Job) => {
        const ids = [...Object.values(preparedAssetIds(job as ReturnType<typeof preparationOf>)), (job.input as unknown as { photo: { id: string } }).photo.id];
        return (await Promise.all(ids.map((id) => blobs.stat(id)))).filter((stat) => stat !== undefined).map((stat) => stat.id);
      };

      const completed = await create();
      assert.equal((await waitForAvatar(app, KEYS.a, completed)).thumbnailGenerationStatus, 'completed');
      const completedJob = (await jobStore.get(completed))!;
      assert.equal((await leftOf(completedJob)).length, 4, 'the photo and three assets exist');
      assert.equal((await app.http.delete(`/v2/avatar/${completed}`).set('key', KEYS.a)).status, 204);
      assert.deepEqual(await leftOf(completedJob), [], 'its photo and assets are deleted');
      assert.equal(await jobStore.get(completed), undefined, 'and its preparation record');

      const release = renderer.hold();
      const running = await create();
      await waitFor('the preparation to run', async () => ((await jobStore.get(running))?.status === 'ongoing' && renderer.faces.length === 2) || undefined);
      const runningJob = (await jobStore.get(running))!;
      jobStore.down = true;
      const res = await app.http.delete(`/v2/avatar/${running}`).set('key', KEYS.a);
      assert.equal(res.status, 204, res.text);
      assert.deepEqual(await leftOf(runningJob), [], 'the photo is deleted although the job could not be ended');
      jobStore.down = false;
      release();
      await waitFor('the run to drop what it made', async () => (await jobStore.get(running)) === undefined || undefined);
      assert.deepEqual(await leftOf(runningJob), [], 'what the preparation made after the delete is deleted');
      assert.equal((await app.http.get(`/v2/avatar/${running}`).set('key', KEYS.a)).status, 404);
    } finally {
      await app.close();
    }
  });

  it('avatars stored before their state moved to their jobs (status and assets in the record, the job record expired) keep that state, are not made again, and are deleted with their assets', async () => {
    const { blobs, jobStore, avatarStore, owner, next } = await storesOfDeadProcess('va-photo-legacy-');
    const longAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const settledAt = new Date(Date.now() - 29 * 86_400_000).toISOString();
    const file = (contentType: string) => blobs.put(createReadStream(h.path('image.png')), { owner, contentType });
    // As 0.1.0 before 9e378f6 wrote them: no `asset`, the state in the record; assets under fresh ids, kept.
    const legacy = async (name: string, state: Record<string, unknown>) => {
      const avatar = { ...makePhotoAvatar({ owner, name, createdAt: longAgo }), photo: await file('image/png'), updatedAt: settledAt, ...state } as OwnedAvatar & { asset?: string };
      delete avatar.asset;
      await avatarStore.create(avatar);
      return avatar;
    };
    const assets = { video: await file('video/mp4'), preview: await file('image/png'), thumbnail: await file('image/png') };
    const completed = await legacy('completed', { status: 'completed', assets });
    const failed = await legacy('failed', { status: 'error', failure: { code: 'processing_failed', message: 'the renderer failed' } });
    const renderer = new FakePhotoRenderer();
    const app = await next(renderer);
    try {
      const get = async (uid: string) => {
        const res = await app.http.get(`/v2/avatar/${uid}`).set('key', KEYS.a);
        assert.equal(res.status, 200, res.text);
        return res.body as Record<string, unknown>;
      };
      const done = await get(completed.uid);
      assert.equal(done.thumbnailGenerationStatus, 'completed');
      assert.equal(done.updatedAt, settledAt);
      assert.match(String(done.thumbnailPath), new RegExp(`/files/${assets.thumbnail.id}`));
      const broken = await get(failed.uid);
      assert.equal(broken.thumbnailGenerationStatus, 'error');
      assert.deepEqual(broken.errorReason, { code: 'processing_failed', message: 'the renderer failed' });
      const listed = await app.http.get('/v2/avatar?perPage=100').set('key', KEYS.a);
      const states = (listed.body.data as { uid: string; thumbnailGenerationStatus: string }[]).filter((a) => a.uid === completed.uid || a.uid === failed.uid);
      assert.deepEqual(states.map((a) => a.thumbnailGenerationStatus).sort(), ['completed', 'error']);
      // Sweeps and reads go by: neither is prepared again.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await get(completed.uid);
      assert.equal(renderer.faces.length, 0, 'a settled avatar is not made again');
      assert.equal(await jobStore.get(completed.uid), undefined);
      assert.equal(await jobStore.get(failed.uid), undefined);

      assert.equal((await app.http.delete(`/v2/avatar/${completed.uid}`).set('key', KEYS.a)).status, 204);
      const left = await Promise.all([(completed as PhotoAvatar).photo, ...Object.values(assets)].map((blob) => blobs.stat(blob.id)));
      assert.deepEqual(left.filter(Boolean), [], 'its photo and its assets are deleted');
    } finally {
      await app.close();
    }
  });

  it('an avatar whose job was never stored gets one at its first read after staleJobMs, but a deleted one is not revived', async () => {
    const avatarStore = new MemoryAvatarStore();
    const jobStore = new MemoryJobStore();
    const scheduled: string[] = [];
    const jobs = { schedule: async (job: Job) => void scheduled.push(job.uid), end: async () => false };
    const blobs = new FsBlobStore(await mkdtemp(join(tmpdir(), 'va-photo-lost-')));
    const owned = new OwnedAvatars(avatarStore, jobStore, jobs, blobs, { staleMs: 1_000 }, silentLogger);
    const lost = makePhotoAvatar({ owner: 'o', createdAt: new Date(Date.now() - 60_000).toISOString() });
    const fresh = makePhotoAvatar({ owner: 'o' });
    await avatarStore.create(lost);
    await avatarStore.create(fresh);
    const listed = await owned.list('o', 0, 10);
    assert.deepEqual(listed.items.map((view) => view.state.status), ['pending', 'pending']);
    assert.deepEqual(scheduled, [lost.uid], 'only the avatar older than staleJobMs gets its job');

    // Read, then deleted before its job is scheduled: the deletion wins.
    const deleting = new (class extends MemoryAvatarStore {
      reads = 0;
      override async get(uid: string, owner?: string) {
        this.reads++;
        const found = await super.get(uid, owner);
        if (this.reads === 1) await this.delete(uid);
        return found;
      }
    })();
    const gone = makePhotoAvatar({ owner: 'o', createdAt: new Date(Date.now() - 60_000).toISOString() });
    await deleting.create(gone);
    scheduled.length = 0;
    const view = await new OwnedAvatars(deleting, jobStore, jobs, blobs, { staleMs: 1_000 }, silentLogger).get(gone.uid, 'o');
    assert.equal(view?.state.status, 'pending');
    assert.deepEqual(scheduled, [], 'a deleted avatar gets no job');
  });

  it('a photo whose avatar record could not be stored keeps an expiry (no leak, and nothing deleted under an avatar that may exist); a stored one loses it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-photo-create-'));
    dirs.push(dataDir);
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    class FlakyAvatarStore extends MemoryAvatarStore {
      down = true;
      override create(avatar: OwnedAvatar) {
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
      assert.equal((await blobs.stat((avatar as PhotoAvatar).photo.id))?.meta.expiresAt, undefined, 'the photo of a stored avatar is kept');
    } finally {
      await app.close();
    }
  });
});

