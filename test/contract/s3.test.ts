/**
 * The contract once more with blobs in S3 (the `s3` option) on a real S3-protocol server (s3rver, started by the
 * test), on both host frameworks: uploads, fetched inputs and results go through the bucket, result and avatar links
 * are presigned URLs served by the object store (not by the Node server), and retention deletes the objects. The S3
 * requests of each step are counted (capacity model) and printed.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { S3BlobStore, TOKENS, verifyWebhook } from '../../src/index.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { download, waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { S3Traffic } from '../helpers/s3-traffic.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const h = useHarness();
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let s3: S3TestServer;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.close());

/** Reads a whole blob from the store. */
async function bytesOf(store: S3BlobStore, id: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await store.open(id))!) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The blob id behind a presigned link (`…/<bucket>/<prefix>blobs/<id>?X-Amz-…`). */
const blobIdOf = (link: string) => /\/blobs\/([A-Za-z0-9_-]+)\?/.exec(link)?.[1] ?? assert.fail(`not a blob link: ${link}`);

for (const adapter of ADAPTERS) {
  describe(`blobs in S3 over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let store: S3BlobStore;
    let traffic: S3Traffic;
    let receiver: WebhookReceiver;
    const assertPresigned = (link: unknown) => {
      assert.equal(typeof link, 'string');
      const url = new URL(link as string);
      assert.equal(url.port, String(s3.port), `served by the object store, not ${app.origin}: ${url}`);
      assert.ok(url.searchParams.get('X-Amz-Signature'), `presigned: ${url}`);
      assert.equal(url.searchParams.get('X-Amz-Expires'), '60');
    };

    before(async () => {
      receiver = await startWebhookReceiver();
      app = await makeApp(adapter, {
        s3: s3.storeOptions(`${adapter}-${randomUUID()}/`),
        retention: { resultsMs: 4_000, uploadsMs: 600_000, linkTtlMs: 60_000, sweepIntervalMs: 200 },
        webhooks: { secret: SECRET, pollMs: 100 },
      });
      store = app.instance.container.resolve<S3BlobStore>(TOKENS.BlobStore);
      traffic = new S3Traffic(store.client);
    });
    after(async () => {
      await app.close();
      await receiver.close();
    });

    it('keeps blobs in S3 and hands out presigned avatar links that the object store serves', async () => {
      assert.ok(store instanceof S3BlobStore);
      const res = await app.http.get('/v2/avatar?perPage=1').set('key', KEYS.a);
      assert.equal(res.status, 200);
      const avatar = res.body.data[0];
      for (const link of [avatar.path, avatar.previewImagePath, avatar.thumbnailPath]) assertPresigned(link);
      const video = await download(avatar.path);
      assert.equal(video.status, 200);
      assert.equal(video.headers.get('content-type'), 'video/mp4');
      assert.match(video.headers.get('content-disposition') ?? '', /^inline; filename="?[^"]+\.mp4"?$/);
      assert.ok(video.body.equals(await bytesOf(store, blobIdOf(avatar.path))));
      const ranged = await download(avatar.thumbnailPath, { range: 'bytes=0-7' });
      assert.equal(ranged.status, 206);
      assert.deepEqual([...ranged.body], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a png, by range');
    });

    it('renders an avatar video from an upload: the engine reads a copy in its work folder, the result is presigned', async () => {
      traffic.take();
      const upload = await app.http.post('/v1/uploads').set('key', KEYS.a).attach('file', h.path('speech.mp3'));
      assert.equal(upload.status, 201, upload.text);
      assert.ok(await store.stat(upload.body.uid), 'the upload is in the bucket');
      const uploadTraffic = traffic.take();
      const avatarId = (await app.http.get('/v2/avatar?perPage=1').set('key', KEYS.a)).body.data[0].uid as string;
      traffic.take();
      const uid = await createVideo(app, KEYS.a, { audioUrl: upload.body.url, avatarId });
      const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      const jobTraffic = traffic.take();
      assertPresigned(job.path);
      const input = app.lipSync.inputs.at(-1)!;
      assert.ok(input.audioPath.startsWith(join(app.dataDir, 'work')), `engine input copied into the work folder: ${input.audioPath}`);
      const video = await download(job.path as string);
      assert.equal(video.status, 200);
      assert.equal(video.headers.get('content-type'), 'video/mp4');
      assert.equal(video.headers.get('content-disposition'), `inline; filename=${uid}.mp4`);
      assert.equal(video.body.subarray(4, 8).toString('latin1'), 'ftyp');
      const id = blobIdOf(job.path as string);
      assert.ok(video.body.equals(await bytesOf(store, id)));
      console.log(`[s3 ${adapter}] upload: ${JSON.stringify(uploadTraffic)}`);
      console.log(`[s3 ${adapter}] avatar video job (create from upload → completed): ${JSON.stringify(jobTraffic)}`);

      // Retention: the result object goes once resultsMs (4 s) has passed, and its presigned link stops working.
      await waitFor('the result to be deleted by retention', async () => ((await store.stat(id)) ? undefined : true), 20_000, 200);
      assert.equal((await download(job.path as string)).status, 404, 'the object store answers 404 once the object is gone');
      const work = await readdir(join(app.dataDir, 'work')).catch(() => []);
      assert.deepEqual(work, [], 'no work or scratch folder is left');
    });

    it('separates a fetched input: checked on a local copy, streamed once into the bucket, stems presigned', async () => {
      traffic.take();
      const uid = await createSeparation(app, KEYS.b, h.url('speech.wav'));
      const job = await waitForJob(app, `/v1/sourceSeparations/${uid}`, KEYS.b);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      const jobTraffic = traffic.take();
      const paths = job.path as { speech: string; ambience: string };
      for (const link of [paths.speech, paths.ambience]) {
        assertPresigned(link);
        const stem = await download(link);
        assert.equal(stem.status, 200);
        assert.equal(stem.headers.get('content-type'), 'audio/wav');
        assert.equal(stem.body.subarray(0, 4).toString('latin1'), 'RIFF');
        assert.ok(stem.body.equals(await bytesOf(store, blobIdOf(link))));
      }
      console.log(`[s3 ${adapter}] separation job (fetched input → completed): ${JSON.stringify(jobTraffic)}`);
      for (const link of [paths.speech, paths.ambience]) {
        const id = blobIdOf(link);
        await waitFor('a stem to be deleted by retention', async () => ((await store.stat(id)) ? undefined : true), 20_000, 200);
      }
    });

    it('sends webhooks whose links are presigned like the GET answer\'s', async () => {
      const res = await app.http.post('/v1/sourceSeparations').set('key', KEYS.c).send({ audioUri: h.url('speech.wav'), webhookUrl: receiver.url });
      assert.equal(res.status, 201, res.text);
      const uid = res.body[0].uid as string;
      const hook = await waitFor('the webhook', async () => receiver.received.find((r) => r.body.includes(uid)), 60_000, 100);
      const event = verifyWebhook<{ type: string; data: { status: string; path: { speech: string; ambience: string } } }>(SECRET, hook.headers, hook.body);
      assert.equal(event.type, 'sourceSeparation.completed');
      for (const link of [event.data.path.speech, event.data.path.ambience]) {
        assertPresigned(link);
        const stem = await download(link);
        assert.equal(stem.status, 200, `the webhook's link is served by the object store: ${link}`);
        assert.equal(stem.body.subarray(0, 4).toString('latin1'), 'RIFF');
      }
    });
  });
}
