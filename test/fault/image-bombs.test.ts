/**
 * Hostile images through HTTP on Express and Koa, with the built-in face detector: a JPEG whose header a generic
 * size reader misreads (it was accepted at 169 megapixels and drove the server to 3.27 GB), a PNG and a WebP bomb as
 * photos, and a 400-megapixel PNG as a job's background. Each is refused with 400 `not_image` naming the limit, and
 * the resident memory of the server's process and its children stays within a stated bound while it happens.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { ADAPTERS, KEYS, makeApp, SUITE_TIMEOUT_MS, type TestApp } from '../helpers/apps.js';
import { assertError } from '../helpers/checks.js';
import { firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { divergentJpeg, zeroPng } from '../helpers/image-bombs.js';
import { withinRss } from '../helpers/process-rss.js';

const h = useHarness();

/**
 * Growth of the resident memory of this process (the server) and its children allowed while a bomb is refused:
 * decoding the smallest of them would take 256 MB (8000 × 8000 × 4), the JPEG 676 MB, the background 400 MB to 1.6 GB.
 */
const RSS_BOUND = 150e6;
const LIMIT = /pixels, at most 50 megapixels/;

let made: Promise<void> | undefined;
const makeBombs = () =>
  (made ??= (async () => {
    // The astronaut re-encoded under 48 KB, so that the fake frame header lands where image-size 2.1 looks for it.
    const canvas = createCanvas(512, 512);
    canvas.getContext('2d').drawImage(await loadImage(await readFile(fileURLToPath(new URL('../fixtures/faces/astronaut.jpg', import.meta.url)))), 0, 0);
    const webp = Buffer.from('RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\x02\0\0\0\0\0\0\0\0\0', 'latin1'); // animated, canvas below
    webp.writeUIntLE(19999, 24, 3);
    webp.writeUIntLE(19999, 27, 3);
    await Promise.all([
      writeFile(join(h.fixtures.dir, 'divergent.jpg'), divergentJpeg(Buffer.from(await canvas.encode('jpeg', 70)), 13000, 13000)),
      zeroPng(8000, 8000).then((png) => writeFile(join(h.fixtures.dir, 'bomb.png'), png)),
      writeFile(join(h.fixtures.dir, 'bomb.webp'), webp),
      zeroPng(20000, 20000).then((png) => writeFile(join(h.fixtures.dir, 'background.png'), png)),
    ]);
  })());

for (const adapter of ADAPTERS) {
  describe(`decompression bombs over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    before(async () => {
      await makeBombs();
      app = await makeApp(adapter);
    });
    after(() => app?.close());

    /** Runs `request` while sampling memory; asserts the bound and returns its answer. */
    const bounded = <T>(what: string, request: () => Promise<T>): Promise<T> => withinRss(`${adapter}, ${what}`, RSS_BOUND, request);

    it('refuses the divergent-header JPEG (13000 × 13000) as an upload and as imageUrl', async () => {
      const uploaded = await bounded('divergent JPEG upload', () => app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', join(h.fixtures.dir, 'divergent.jpg')));
      assertError(uploaded, 400, 'not_image', ['body.file']);
      assert.match(uploaded.body.error.message, /13000×13000 pixels, at most 50 megapixels/);
      const linked = await bounded('divergent JPEG imageUrl', () => app.http.post('/v2/avatar').set('key', KEYS.a).send({ imageUrl: h.files.url('divergent.jpg') }));
      assertError(linked, 400, 'not_image', ['body.imageUrl']);
      assert.match(linked.body.error.message, /13000×13000 pixels, at most 50 megapixels/);
    });

    it('refuses a PNG bomb (8000 × 8000 zeros) and a WebP bomb (20000 × 20000 canvas) as photos', async () => {
      for (const name of ['bomb.png', 'bomb.webp']) {
        const answer = await bounded(name, () => app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', join(h.fixtures.dir, name)));
        assertError(answer, 400, 'not_image', ['body.file']);
        assert.match(answer.body.error.message, LIMIT);
      }
    });

    it('refuses a 400-megapixel PNG background (389 KB) at job creation', async () => {
      const avatarId = await firstAvatarId(app, KEYS.a);
      const answer = await bounded('400-megapixel background', () =>
        app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.wav'), avatarId, backgroundUrl: h.files.url('background.png') }),
      );
      assertError(answer, 400, 'not_image', ['body.backgroundUrl']);
      assert.match(answer.body.error.message, /20000×20000 pixels, at most 50 megapixels/);
      const jobs = await app.http.get('/v2/2davatar').set('key', KEYS.a);
      assert.equal(jobs.body.total, 0, 'no job was made');
    });

    it('refuses a GIF background: images are decoded by the canvas as JPEG, PNG or WebP only', async () => {
      await writeFile(join(h.fixtures.dir, 'pixel.gif'), Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'));
      const avatarId = await firstAvatarId(app, KEYS.a);
      const answer = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.wav'), avatarId, backgroundUrl: h.files.url('pixel.gif') });
      assertError(answer, 400, 'not_image', ['body.backgroundUrl']);
    });

    it('still accepts an ordinary background and photo', async () => {
      const avatarId = await firstAvatarId(app, KEYS.a);
      const canvas = createCanvas(640, 360);
      canvas.getContext('2d').fillRect(0, 0, 640, 360);
      await writeFile(join(h.fixtures.dir, 'ordinary.jpg'), await canvas.encode('jpeg', 80));
      const job = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.wav'), avatarId, backgroundUrl: h.files.url('ordinary.jpg') });
      assert.equal(job.status, 201, job.text);
      const photo = await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', fileURLToPath(new URL('../fixtures/faces/grace_hopper.jpg', import.meta.url)));
      assert.equal(photo.status, 201, photo.text);
    });
  });
}
