/**
 * One key cannot slow another down at the face detector, through HTTP on Express and Koa with the built-in detector:
 * one key posts 16 legal 49-megapixel portraits at once (each holds the one detection worker for seconds) while
 * another key posts a small portrait. The other key is served next (201 after about one large detection, not
 * after the first key's whole burst); the first key gets 201 for the photos that fit its queue and 429
 * `too_many_requests` with `Retry-After` for the rest; nothing answers 500 (a wait never counts against the
 * detection's deadline).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { ADAPTERS, KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError } from '../helpers/checks.js';
import { FakePhotoRenderer } from '../helpers/photo-doubles.js';

const PORTRAIT = fileURLToPath(new URL('../fixtures/faces/grace_hopper.jpg', import.meta.url));
const BURST = 16;
const QUEUED_PER_KEY = 4;

let dir: string;
let large: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-photo-queue-'));
  // The portrait scaled to 7000 × 7000 (49 megapixels, under the 50-megapixel limit): about 2 MB as a JPEG.
  const canvas = createCanvas(7000, 7000);
  canvas.getContext('2d').drawImage(await loadImage(await readFile(PORTRAIT)), 0, 0, 7000, 7000);
  large = join(dir, 'large.jpg');
  await writeFile(large, await canvas.encode('jpeg', 85));
});
after(() => rm(dir, { recursive: true, force: true }));

for (const adapter of ADAPTERS) {
  describe(`face detection queue over ${adapter}`, { timeout: 240_000 }, () => {
    let app: TestApp;
    before(async () => {
      // The photo renderer is a double: preparing the accepted avatars must not compete with detection for the CPU.
      app = await makeApp(adapter, { backends: { photoRenderer: new FakePhotoRenderer() }, limits: { maxQueuedPhotosPerKey: QUEUED_PER_KEY } });
      // Load the detector's models first, so that the timings below are the photos' own.
      const warm = await app.http.post('/v2/avatar').set('key', KEYS.c).attach('file', PORTRAIT);
      assert.equal(warm.status, 201, warm.text);
    });
    after(() => app?.close());

    it('serves another key next during a burst of 49-megapixel photos; the burst gets 201 and 429, never 500', async () => {
      const t0 = performance.now();
      const burst = Array.from({ length: BURST }, () =>
        app.http
          .post('/v2/avatar')
          .set('key', KEYS.a)
          .attach('file', large)
          .then((res) => ({ res, at: performance.now() - t0 })),
      );
      // Post the other key's portrait once the burst fills its queue (its first 429), or after 5 s.
      const firstRefusal = Promise.race(burst.map((answer) => answer.then(({ res }) => (res.status === 429 ? undefined : new Promise(() => {})))));
      await Promise.race([firstRefusal, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      const postedAt = performance.now() - t0;
      const other = await app.http.post('/v2/avatar').set('key', KEYS.b).attach('file', PORTRAIT);
      const otherAt = performance.now() - t0;
      const answers = await Promise.all(burst);

      assert.equal(other.status, 201, other.text);
      const statuses = answers.map(({ res }) => res.status);
      const accepted = answers.filter(({ res }) => res.status === 201);
      const counts = [...new Set(statuses)].map((status) => `${statuses.filter((s) => s === status).length}× ${status}`);
      console.log(
        `${adapter}: burst of ${BURST} answered ${counts.join(', ')}; the other key posted at ${(postedAt / 1000).toFixed(1)} s, answered at ` +
          `${(otherAt / 1000).toFixed(1)} s; the burst's 201s at ${accepted.map(({ at }) => (at / 1000).toFixed(1)).join(', ')} s`,
      );
      assert.ok(statuses.every((status) => status === 201 || status === 429), `only 201 and 429: ${statuses.join(', ')}`);
      assert.ok(accepted.length >= 1 && accepted.length <= 1 + QUEUED_PER_KEY + 2, `${accepted.length} accepted`);
      assert.ok(statuses.includes(429));
      for (const { res } of answers.filter(({ res }) => res.status === 429)) {
        assertError(res, 429, 'too_many_requests');
        assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/);
      }
      // Round-robin: after the other key arrived, at most the detection then running (and one that started as it
      // arrived) finished before its own; first-come-first-served would have put the whole queued burst first.
      const servedBefore = accepted.filter(({ at }) => at > postedAt && at < otherAt).length;
      assert.ok(servedBefore <= 2, `${servedBefore} of the burst's photos were served between the other key's post and its answer`);
      assert.ok(accepted.some(({ at }) => at > otherAt), 'the burst still had photos waiting when the other key was served');
    });
  });
}
