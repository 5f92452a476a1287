/**
 * Photo avatars on the scaled-out backends: records in Redis, the preparation on the BullMQ queue, the photo and
 * the assets in S3 (s3rver). An API-only process (role `api`, no renderer) and a worker process share them: the
 * avatar created on the API process is prepared by the worker, its assets outlive the results' retention, a video
 * job on the worker renders with the photo fetched from S3, and a delete removes it and its files from the shared stores.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, download, waitForAvatar, waitForJob } from '../helpers/checks.js';
import { createVideo, upload } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { FakeFaceDetector, FakePhotoRenderer, makePortraits } from '../helpers/photo-doubles.js';
import { join } from 'node:path';

const h = useHarness();
const namespace = `va-test-photo-${randomBytes(4).toString('hex')}`;
let s3: S3TestServer;
before(async () => {
  s3 = await startS3Server();
});
after(async () => {
  await s3.close();
  await deleteRedisNamespace(namespace);
});

describe('photo avatars on Redis, BullMQ and S3, across an API process and a worker', { timeout: SUITE_TIMEOUT_MS }, () => {
  let api: TestApp;
  let worker: TestApp;
  const renderer = new FakePhotoRenderer();
  before(async () => {
    await makePortraits(h.fixtures.dir);
    const shared = {
      redis: SHARED_REDIS_URL,
      redisNamespace: namespace,
      queue: 'bullmq' as const,
      s3: s3.storeOptions(`photo-${randomUUID()}/`),
      // Results expire after 2 s: the avatar's assets must not.
      retention: { resultsMs: 2_000, sweepIntervalMs: 200, linkTtlMs: 60_000 },
    };
    worker = await makeApp('express', { ...shared, role: 'worker', backends: { faceDetector: new FakeFaceDetector(), photoRenderer: renderer } });
    api = await makeApp('koa', { ...shared, role: 'api', backends: { faceDetector: new FakeFaceDetector() } });
  });
  after(async () => {
    await api?.close();
    await worker?.close();
  });

  it('prepares on the worker an avatar created on the API process, keeps its assets past the retention, and renders a video with it', async () => {
    const res = await api.http.post('/v2/avatar').set('key', KEYS.a).attach('file', join(h.fixtures.dir, 'portrait.png'));
    assert.equal(res.status, 201, res.text);
    const uid = res.body.uid as string;
    const done = await waitForAvatar(api, KEYS.a, uid);
    assert.equal(done.thumbnailGenerationStatus, 'completed', JSON.stringify(done));
    assert.equal(new URL(done.path!).port, String(s3.port), 'the idle clip is served by the object store');
    assert.equal(renderer.faces.length, 1, 'the worker rendered it');

    await sleep(2_500);
    const later = (await api.http.get(`/v2/avatar/${uid}`).set('key', KEYS.a)).body as Record<string, string>;
    for (const link of [later.path!, later.previewImagePath!, later.thumbnailPath!]) assert.equal((await download(link)).status, 200, `${link} outlives the retention of results`);

    // An upload (kept uploadsMs), not a download: downloads expire with the results' 2 s here.
    const speech = await upload(api, KEYS.a, h.path('speech.wav'));
    const job = await createVideo(api, KEYS.a, { audioUrl: speech.url, avatarId: uid });
    const video = await waitForJob(api, `/v2/2davatar/${job}`, KEYS.a);
    assert.equal(video.status, 'completed', JSON.stringify(video));
    assert.equal(worker.lipSync.inputs.at(-1)?.photo?.landmarks.box.y, 150, 'the worker rendered the video with the photo');

    assertError(await api.http.get(`/v2/avatar/${uid}`).set('key', KEYS.b), 404, 'not_found');
    assert.equal((await api.http.delete(`/v2/avatar/${uid}`).set('key', KEYS.a)).status, 204);
    assertError(await api.http.get(`/v2/avatar/${uid}`).set('key', KEYS.a), 404, 'not_found');
    assert.notEqual((await download(later.path!)).status, 200, 'its idle clip is deleted from S3');
  });
});
