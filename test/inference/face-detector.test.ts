/**
 * The built-in FaceDetector as the service uses it: on its worker thread, with the decoding rules (JPEG, PNG,
 * WebP; EXIF orientation; anything else is NotAnImageError) and without blocking the event loop.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { FacePoint } from '../../src/domain/avatar/face-landmarks.js';
import { NotAnImageError, type FaceDetection } from '../../src/domain/avatar/photo.js';
import { createFaceDetector, faceWorkers } from '../../src/inference/face/face-detector.js';
import { MAX_PHOTO_PIXELS } from '../../src/inference/face/decode-photo.js';
import { bytesSource, readImageHeader } from '../../src/inference/image/image-header.js';

const ASTRONAUT = fileURLToPath(new URL('../fixtures/faces/astronaut.jpg', import.meta.url));

/** `jpeg` with an EXIF block (APP1) that holds only the Orientation tag. */
function withExifOrientation(jpeg: Buffer, orientation: number): Buffer {
  const tiff = Buffer.alloc(26);
  tiff.write('MM\0*', 0, 'latin1'); // big-endian TIFF header
  tiff.writeUInt32BE(8, 4); // first IFD at offset 8
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(0x0112, 10); // Orientation
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14); // one value
  tiff.writeUInt16BE(orientation, 18); // the value, left-justified in the 4-byte field
  tiff.writeUInt32BE(0, 22); // no next IFD
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xffe1, 0);
  header.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, body, jpeg.subarray(2)]);
}

const centre = (points: FacePoint[]): FacePoint => [points.reduce((s, [x]) => s + x, 0) / points.length, points.reduce((s, [, y]) => s + y, 0) / points.length];

describe('HumanFaceDetector (worker thread)', () => {
  const detector = createFaceDetector();
  let dir = '';
  let upright: FaceDetection;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'face-detector-'));
    upright = await detector.detect(ASTRONAUT);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('runs on a worker thread and finds the face', () => {
    assert.equal(faceWorkers(), 1);
    assert.equal(upright.faces.length, 1);
    assert.deepEqual([upright.imageWidth, upright.imageHeight], [512, 512]);
  });

  it('keeps the event loop free while it works', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    await detector.detect(ASTRONAUT);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    // A blocked loop would tick at most once; a free one about every 5 ms (allow a loaded machine a lot of slack).
    console.log(`detection took ${elapsed.toFixed(0)} ms on the worker; the loop ticked ${ticks} times`);
    assert.ok(ticks >= Math.min(10, elapsed / 50), `${ticks} ticks in ${elapsed.toFixed(0)} ms`);
  });

  it('decodes WebP and PNG like JPEG', async () => {
    const image = await loadImage(ASTRONAUT);
    const canvas = createCanvas(image.width, image.height);
    canvas.getContext('2d').drawImage(image, 0, 0);
    for (const format of ['webp', 'png'] as const) {
      const path = join(dir, `astronaut.${format}`);
      const bytes = format === 'webp' ? await canvas.encode('webp', 95) : await canvas.encode('png');
      await writeFile(path, bytes);
      assert.equal((await readImageHeader(bytesSource(bytes))).format, format);
      const { faces } = await detector.detect(path);
      assert.equal(faces.length, 1, format);
      const shift = Math.hypot(centre(faces[0].points)[0] - centre(upright.faces[0].points)[0], centre(faces[0].points)[1] - centre(upright.faces[0].points)[1]);
      assert.ok(shift < 2, `${format}: the face is where it is in the JPEG (${shift.toFixed(2)} px)`);
    }
  });

  it('applies the EXIF orientation: a photo stored on its side is seen upright', async () => {
    // Store the portrait turned 90° counter-clockwise, tagged "rotate 90° clockwise to view" (orientation 6).
    const image = await loadImage(ASTRONAUT);
    const canvas = createCanvas(image.height, image.width);
    const ctx = canvas.getContext('2d');
    ctx.translate(0, image.width);
    ctx.rotate(-Math.PI / 2);
    ctx.drawImage(image, 0, 0);
    const path = join(dir, 'sideways.jpg');
    await writeFile(path, withExifOrientation(await canvas.encode('jpeg', 95), 6));
    const { faces, imageWidth, imageHeight } = await detector.detect(path);
    assert.deepEqual([imageWidth, imageHeight], [512, 512]);
    assert.equal(faces.length, 1);
    const [eyeLeft, eyeRight] = [centre(faces[0].points.slice(36, 42)), centre(faces[0].points.slice(42, 48))];
    assert.ok(Math.abs(eyeLeft[1] - eyeRight[1]) < 5 && eyeLeft[0] < eyeRight[0], 'eyes level, in order: upright');
    const shift = Math.hypot(centre(faces[0].points)[0] - centre(upright.faces[0].points)[0], centre(faces[0].points)[1] - centre(upright.faces[0].points)[1]);
    assert.ok(shift < 3, `the face is where it is in the upright photo (${shift.toFixed(2)} px)`);
  });

  it('answers NotAnImageError for a file that is not a JPEG, PNG or WebP image', async () => {
    const jpeg = await readFile(ASTRONAUT);
    const cases: [string, Buffer][] = [
      ['text.jpg', Buffer.from('name,value\nnot,an image\n')],
      ['empty.png', Buffer.alloc(0)],
      ['header-only.jpg', jpeg.subarray(0, 120)],
      ['gif.gif', Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')],
    ];
    for (const [name, bytes] of cases) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      await assert.rejects(detector.detect(path), (error: unknown) => error instanceof NotAnImageError, name);
    }
  });

  it(`refuses an image that declares more than ${MAX_PHOTO_PIXELS / 1e6} megapixels before decoding it`, async () => {
    const ihdr = Buffer.alloc(25);
    ihdr.writeUInt32BE(13, 0);
    ihdr.write('IHDR', 4, 'latin1');
    ihdr.writeUInt32BE(30_000, 8);
    ihdr.writeUInt32BE(30_000, 12);
    ihdr.set([8, 6, 0, 0, 0], 16); // 8-bit RGBA
    const path = join(dir, 'huge.png');
    await writeFile(path, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]));
    await assert.rejects(detector.detect(path), (error: unknown) => error instanceof NotAnImageError && /30000×30000 pixels/.test(error.message));
  });

  it('rejects with the abort reason when aborted, and works on afterwards', async () => {
    const controller = new AbortController();
    const running = detector.detect(ASTRONAUT, controller.signal);
    controller.abort(new Error('stop'));
    await assert.rejects(running, /stop/);
    assert.equal((await detector.detect(ASTRONAUT)).faces.length, 1);
  });

  it('counts timeoutMs from when the worker takes the detection, not while it waits for the worker', async () => {
    // A 49-megapixel photo holds the one worker far longer than a portrait (0.6–5 s measured, machines differ); as many
    // of them as take twice the deadline are queued ahead of a portrait, whose wait alone then exceeds its deadline.
    const canvas = createCanvas(7000, 7000);
    canvas.getContext('2d').drawImage(await loadImage(ASTRONAUT), 0, 0, 7000, 7000);
    const big = join(dir, 'big.jpg');
    await writeFile(big, await canvas.encode('jpeg', 85));
    const warm = performance.now();
    await detector.detect(ASTRONAUT);
    const timeoutMs = Math.max(1_000, Math.round(3 * (performance.now() - warm)));
    await detector.detect(big); // the first one of that size is slower (allocations); time the second
    const alone = performance.now();
    await detector.detect(big);
    const bigMs = performance.now() - alone;
    const ahead = Math.min(10, Math.ceil((2 * timeoutMs) / bigMs));
    const started = performance.now();
    const slow = Promise.all(Array.from({ length: ahead }, () => detector.detect(big))).then(() => performance.now() - started);
    const behind = await createFaceDetector({ timeoutMs }).detect(ASTRONAUT);
    const behindTook = performance.now() - started;
    console.log(
      `49-megapixel detection alone: ${bigMs.toFixed(0)} ms; ${ahead} of them: ${(await slow).toFixed(0)} ms; the portrait behind them (deadline ${timeoutMs} ms) answered after ${behindTook.toFixed(0)} ms`,
    );
    assert.equal(behind.faces.length, 1);
    assert.ok(behindTook > timeoutMs, `the portrait waited ${behindTook.toFixed(0)} ms in all, longer than its deadline, and still succeeded`);
  });

  it('fails a detection that outlasts timeoutMs and ends its worker; the next detection works', async () => {
    const hurried = createFaceDetector({ timeoutMs: 1 });
    await assert.rejects(hurried.detect(ASTRONAUT), /face detection did not finish within 1 ms/);
    const { faces } = await detector.detect(ASTRONAUT);
    assert.equal(faces.length, 1);
  });
});

describe('HumanFaceDetector on the calling thread', () => {
  it('leaves no uncaughtException / unhandledRejection listener of the WASM runtime on the host', async () => {
    const count = () => process.listenerCount('uncaughtException') + process.listenerCount('unhandledRejection');
    const before = count();
    const { faces } = await createFaceDetector({ thread: 'main' }).detect(ASTRONAUT);
    assert.equal(faces.length, 1);
    assert.equal(count(), before, 'listeners that rethrow would turn any unhandled rejection of the host into a crash');
  });
});

