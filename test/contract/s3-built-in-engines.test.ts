/**
 * The built-in engines (lip-sync renderer, ONNX separation) with blobs in S3 (s3rver): the worker streams the
 * input from the bucket into the job's work folder, the engines read it there, and the results go back to the
 * bucket, downloadable through presigned links. One framework is enough here (the adapters are covered by s3.test.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { download, saveTo, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { ffprobe } from '../helpers/media.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';

const h = useHarness();

describe('built-in engines with blobs in S3', { timeout: 240_000 }, () => {
  let s3: S3TestServer;
  let app: TestApp;
  let scratch: string;
  before(async () => {
    s3 = await startS3Server();
    scratch = await mkdtemp(join(tmpdir(), 'va-s3-engines-'));
    // `undefined` engines: the built-in ones (the avatar assets stay the test renderer's, to keep start-up short).
    app = await makeApp('express', { s3: s3.storeOptions(`engines-${randomUUID()}/`), backends: { lipSync: undefined, separation: undefined } });
  });
  after(async () => {
    await app?.close();
    await s3?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('renders a lip-synced video of espeak speech and separates it, inputs and results in the bucket', async () => {
    const avatarId = await firstAvatarId(app, KEYS.a);
    const video = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId });
    const separation = await createSeparation(app, KEYS.b, h.url('speech.wav'));
    const videoJob = await waitForJob(app, `/v2/2davatar/${video}`, KEYS.a, ['completed', 'error'], 180_000);
    assert.equal(videoJob.status, 'completed', JSON.stringify(videoJob));
    assert.equal(new URL(videoJob.path as string).port, String(s3.port), 'served by the object store');
    const probe = await ffprobe(await saveTo(join(scratch, 'video.mp4'), await download(videoJob.path as string)));
    assert.ok(probe.streams.some((s) => s.codec_type === 'video'), JSON.stringify(probe));
    assert.ok(probe.streams.some((s) => s.codec_type === 'audio'), JSON.stringify(probe));
    assert.ok(Number(probe.format.duration) > 1, `duration ${probe.format.duration}`);

    const separationJob = await waitForJob(app, `/v1/sourceSeparations/${separation}`, KEYS.b, ['completed', 'error'], 180_000);
    assert.equal(separationJob.status, 'completed', JSON.stringify(separationJob));
    assert.equal(app.lipSync.inputs.length, 0, 'the test double was not used');
    const stems = separationJob.path as { speech: string; ambience: string };
    for (const link of [stems.speech, stems.ambience]) {
      assert.equal(new URL(link).port, String(s3.port));
      const stem = await download(link);
      assert.equal(stem.status, 200);
      assert.ok(stem.body.length > 1000, `a stem of ${stem.body.length} bytes`);
    }
  });
});
