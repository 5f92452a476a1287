/**
 * Video avatars on the scaled-out backends: records in Redis, the preparation on the BullMQ queue, the clip and the
 * assets in S3 (s3rver). An API-only process (role `api`, Koa) takes the clip (checked at once there), a worker
 * process (Express) prepares it with the built-in preparer and makes a lip-synced video with it, the face data and
 * the mouth atlas fetched from the bucket; its links are served by the object store, and a delete removes every
 * object the avatar added to the bucket.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { resolveMediaBinaries } from '../../src/inference/media/index.js';
import { S3BlobStore, TOKENS } from '../../src/index.js';
import { KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, download, saveTo, waitForAvatar, waitForJob } from '../helpers/checks.js';
import { createVideo, upload } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { ffprobe } from '../helpers/media.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { clmtrackrClip, cutClip } from './helpers.js';

const h = useHarness();
const namespace = `va-test-video-${randomBytes(4).toString('hex')}`;

describe('video avatars on Redis, BullMQ and S3, across an API process and a worker', { timeout: 300_000 }, () => {
  let s3: S3TestServer;
  let api: TestApp;
  let worker: TestApp;
  let scratch: string;
  let prefix: string;
  before(async () => {
    s3 = await startS3Server();
    scratch = await mkdtemp(join(tmpdir(), 'va-video-scaled-'));
    prefix = `video-${randomUUID()}/`;
    const shared = {
      redis: SHARED_REDIS_URL,
      redisNamespace: namespace,
      queue: 'bullmq' as const,
      s3: s3.storeOptions(prefix),
      retention: { resultsMs: 600_000, sweepIntervalMs: 1_000, linkTtlMs: 60_000 },
    };
    // `undefined`: the built-in lip-sync engine; the face detector and the video preparer are built-in unless named.
    worker = await makeApp('express', { ...shared, role: 'worker', backends: { lipSync: undefined } });
    api = await makeApp('koa', { ...shared, role: 'api' });
  });
  after(async () => {
    await api?.close();
    await worker?.close();
    await s3?.close();
    await deleteRedisNamespace(namespace);
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** Every object key under this test's prefix in the bucket. */
  async function keys(): Promise<Set<string>> {
    const store = api.instance.container.resolve<S3BlobStore>(TOKENS.BlobStore);
    assert.ok(store instanceof S3BlobStore);
    const found = new Set<string>();
    let token: string | undefined;
    do {
      const page = await store.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const item of page.Contents ?? []) found.add(item.Key!);
      token = page.NextContinuationToken;
    } while (token);
    return found;
  }

  it('prepares on the worker a clip sent to the API process, serves its links from S3, renders a video with it, and deletes its objects', async () => {
    const binaries = await resolveMediaBinaries();
    const clip = await cutClip(binaries, clmtrackrClip(), join(scratch, 'franck.mp4'), 4, 150);
    const speech = await upload(api, KEYS.c, h.path('speech.wav'));
    const before = await keys();

    const created = await api.http.post('/v2/avatar').set('key', KEYS.c).field('name', 'Franck').attach('file', clip);
    assert.equal(created.status, 201, created.text);
    const uid = created.body.uid as string;
    const avatar = await waitForAvatar(api, KEYS.c, uid, 240_000, 300);
    assert.equal(avatar.thumbnailGenerationStatus, 'completed', JSON.stringify(avatar));
    const links = [avatar.path as string, avatar.previewImagePath as string, avatar.thumbnailPath as string];
    for (const link of links) {
      const url = new URL(link);
      assert.equal(url.port, String(s3.port), `served by the object store: ${link}`);
      assert.ok(url.searchParams.get('X-Amz-Signature'), `presigned: ${link}`);
    }
    const idle = (await ffprobe(await saveTo(join(scratch, 'idle.mp4'), await download(links[0]!)))) as { streams: { codec_type: string; width?: number; height?: number }[] };
    const picture = idle.streams.find((s) => s.codec_type === 'video');
    assert.deepEqual([picture?.width, picture?.height], [360, 288], 'the prepared clip, at its size');
    for (const link of links.slice(1)) {
      const image = await download(link);
      assert.equal(image.status, 200);
      assert.equal(image.body.subarray(1, 4).toString('latin1'), 'PNG');
    }
    const added = [...(await keys())].filter((key) => !before.has(key));
    // The clip, the prepared clip, preview, thumbnail, face data and mouth atlas (and their metadata, if kept apart).
    assert.ok(added.length >= 6, `the avatar's objects in the bucket: ${JSON.stringify(added)}`);

    const job = await createVideo(api, KEYS.c, { audioUrl: speech.url, avatarId: uid });
    const done = await waitForJob(api, `/v2/2davatar/${job}`, KEYS.c, ['completed', 'error'], 180_000);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(worker.lipSync.inputs.length, 0, 'the built-in engine rendered it, not the test double');
    assert.equal(new URL(done.path as string).port, String(s3.port));
    const video = (await ffprobe(await saveTo(join(scratch, 'video.mp4'), await download(done.path as string)))) as { streams: { codec_type: string; width?: number; height?: number }[] };
    assert.deepEqual(
      video.streams.filter((s) => s.codec_type === 'video').map((s) => [s.width, s.height]),
      [[360, 288]],
      'the clip at its own size',
    );

    assertError(await api.http.get(`/v2/avatar/${uid}`).set('key', KEYS.d), 404, 'not_found');
    const kept = await keys();
    assert.equal((await api.http.delete(`/v2/avatar/${uid}`).set('key', KEYS.c)).status, 204);
    assertError(await api.http.get(`/v2/avatar/${uid}`).set('key', KEYS.c), 404, 'not_found');
    const left = await keys();
    assert.deepEqual(added.filter((key) => left.has(key)), [], 'every object the avatar added is deleted from the bucket');
    assert.ok(added.every((key) => kept.has(key)), 'its objects were there until the delete');
    for (const link of links) assert.notEqual((await download(link)).status, 200, `${link} is gone`);
  });
});
