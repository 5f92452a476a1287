/**
 * The image header walk (src/inference/image/image-header.ts) reads the size Skia's decoders will decode, by their
 * rules: checked here against Skia itself on ordinary files and on files built so that simpler readers disagree
 * (fill bytes, a fake frame header after the end, garbage between segments), and on the bombs it must refuse
 * without decoding them: the photo decoder and the background renderer stay within a stated memory bound.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { bytesSource, checkImageFile, checkImageHeader, ImageCheckError, MAX_IMAGE_PIXELS, readImageHeader } from '../../src/inference/image/image-header.js';
import { loadCheckedImage } from '../../src/inference/image/load-image.js';
import { decodePhoto } from '../../src/inference/face/decode-photo.js';
import { NotAnImageError } from '../../src/domain/avatar/photo.js';
import { FrameRenderer } from '../../src/inference/render/frame-renderer.js';
import { builtIns } from '../avatar/helpers.js';
import { divergentJpeg, FAKE_SOF, sofOffset, zeroPng } from '../helpers/image-bombs.js';
import { mb, watchRss } from '../helpers/process-rss.js';

const FACES = (name: string) => fileURLToPath(new URL(`../fixtures/faces/${name}`, import.meta.url));

/** Growth of this process's resident memory (and its children's) allowed while a bomb is refused. */
const REFUSAL_RSS_BOUND = 100e6;

/** The size Skia decodes `bytes` to. */
async function skiaSize(bytes: Uint8Array): Promise<[number, number]> {
  const image = await loadImage(bytes);
  return [image.width, image.height];
}

async function headerSize(bytes: Uint8Array): Promise<[number, number]> {
  const { width, height } = await readImageHeader(bytesSource(bytes));
  return [width, height];
}

/** `jpeg` with `extra` put right before its frame header's marker. */
function beforeSof(jpeg: Buffer, extra: number[]): Buffer {
  const at = sofOffset(jpeg);
  return Buffer.concat([jpeg.subarray(0, at), Buffer.from(extra), jpeg.subarray(at)]);
}

const refused = (pattern: RegExp, tooLarge = false) => (error: unknown) =>
  error instanceof ImageCheckError && pattern.test(error.message) && error.tooLarge === tooLarge;

describe('the image header walk', () => {
  let astronaut: Buffer;
  /** The astronaut re-encoded under 48 KB, short enough for divergentJpeg to fool a naive reader. */
  let small: Buffer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'va-image-header-'));
    astronaut = await readFile(FACES('astronaut.jpg'));
    const canvas = createCanvas(512, 512);
    canvas.getContext('2d').drawImage(await loadImage(astronaut), 0, 0);
    small = Buffer.from(await canvas.encode('jpeg', 70));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads the size Skia decodes, for JPEG, PNG and WebP (lossy, lossless, extended)', async () => {
    const image = await loadImage(astronaut);
    const canvas = createCanvas(300, 200);
    canvas.getContext('2d').drawImage(image, 0, 0, 300, 200);
    const files: [string, Buffer][] = [
      ['astronaut.jpg', astronaut],
      ['grace_hopper.jpg', await readFile(FACES('grace_hopper.jpg'))],
      ['china-landscape.jpg', await readFile(FACES('china-landscape.jpg'))],
      ['png', Buffer.from(await canvas.encode('png'))],
      ['webp (VP8X)', Buffer.from(await canvas.encode('webp', 80))],
      ['webp lossless', Buffer.from(await canvas.encode('webp', 100))],
      ['jpeg 300×200', Buffer.from(await canvas.encode('jpeg', 80))],
    ];
    for (const [name, bytes] of files) assert.deepEqual(await headerSize(bytes), await skiaSize(bytes), name);
  });

  it('reads simple WebP (VP8, VP8L) headers', async () => {
    const vp8 = Buffer.from('RIFF\0\0\0\0WEBPVP8 \x20\0\0\0\x10\x02\0\x9d\x01\x2a\x2c\x01\xc8\x00', 'latin1');
    assert.deepEqual(await headerSize(vp8), [300, 200]);
    const vp8l = Buffer.from('RIFF\0\0\0\0WEBPVP8L\x20\0\0\0\x2f\0\0\0\0', 'latin1');
    const bits = 299 | (199 << 14);
    vp8l.writeUInt32LE(bits, 21);
    assert.deepEqual(await headerSize(vp8l), [300, 200]);
  });

  it('follows libjpeg where simpler readers do not: fill bytes before a marker, garbage and FF 00 between segments, a fake SOF after the end', async () => {
    // divergentJpeg: a fill byte before the SOF, a fake 16 × 16 SOF after the EOI (image-size 2.1 reads 16 × 16).
    const divergent = divergentJpeg(small, 1200, 1000);
    assert.deepEqual(await skiaSize(divergent), [1200, 1000], 'Skia decodes the size of the real SOF');
    assert.deepEqual(await headerSize(divergent), [1200, 1000]);
    const cases: [string, Buffer][] = [
      ['three fill bytes', beforeSof(astronaut, [0xff, 0xff, 0xff])],
      ['garbage before a marker', beforeSof(astronaut, [0x00, 0x12, 0x34])],
      ['a stuffed FF 00 before a marker', beforeSof(astronaut, [0xff, 0x00])],
      ['a fake SOF after the end', Buffer.concat([astronaut, FAKE_SOF])],
      ['an RST marker before the SOF', beforeSof(astronaut, [0xff, 0xd0])],
    ];
    for (const [name, bytes] of cases) {
      assert.deepEqual(await headerSize(bytes), await skiaSize(bytes), name);
      assert.deepEqual(await headerSize(bytes), [512, 512], name);
    }
  });

  it('refuses what libjpeg refuses, or what it cannot account for', async () => {
    const at = sofOffset(astronaut);
    const sofLength = astronaut.readUInt16BE(at + 2);
    const sof = astronaut.subarray(at, at + 2 + sofLength);
    const zeroWidth = Buffer.from(astronaut);
    zeroWidth.writeUInt16BE(0, at + 7);
    const cases: [string, Buffer, RegExp][] = [
      ['a second SOF', beforeSof(astronaut, [...sof]), /second frame header/],
      ['no SOF before the scan', Buffer.concat([astronaut.subarray(0, at), astronaut.subarray(at + 2 + sofLength)]), /scan comes before the frame header/],
      ['a hierarchical SOF', beforeSof(astronaut, [0xff, 0xc5, 0x00, 0x02]), /does not support/],
      ['an unknown marker', beforeSof(astronaut, [0xff, 0xf0, 0x00, 0x02]), /unknown marker 0xFFF0/],
      ['a second SOI', beforeSof(astronaut, [0xff, 0xd8]), /second start-of-image/],
      ['EOI before any scan', beforeSof(astronaut, [0xff, 0xd9]), /ends \(EOI\)/],
      ['a width of 0', zeroWidth, /declares no pixels/],
      ['the header cut off', astronaut.subarray(0, 120), /ends before its first scan|ends inside its header/],
    ];
    for (const [name, bytes, pattern] of cases) await assert.rejects(readImageHeader(bytesSource(bytes)), refused(pattern), name);
  });

  it('refuses PNGs whose first chunk is not IHDR, other formats, and empty files', async () => {
    const png = Buffer.from(await createCanvas(8, 8).encode('png'));
    const text = Buffer.from('\0\0\0\x04tEXtabcd\0\0\0\0', 'latin1');
    await assert.rejects(readImageHeader(bytesSource(Buffer.concat([png.subarray(0, 8), text, png.subarray(8)]))), refused(/first chunk is not IHDR/));
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    for (const bytes of [gif, Buffer.alloc(0), Buffer.from('name,value\n')]) {
      await assert.rejects(readImageHeader(bytesSource(bytes)), refused(/not a JPEG, PNG or WebP/));
    }
  });

  it(`refuses more than ${MAX_IMAGE_PIXELS / 1e6} megapixels: the divergent JPEG, a PNG and WebP bombs`, async () => {
    const riff = (chunk: string) => Buffer.from(`RIFF\0\0\0\0WEBP${chunk}`, 'latin1');
    const vp8l = riff('VP8L\x20\0\0\0\x2f\0\0\0\0');
    vp8l.writeUInt32LE(16382 | (16382 << 14), 21); // 16383 × 16383, the largest VP8L
    const vp8x = riff('VP8X\x0a\0\0\0\x02\0\0\0\0\0\0\0\0\0'); // animated, canvas 20000 × 20000
    vp8x.writeUIntLE(19999, 24, 3);
    vp8x.writeUIntLE(19999, 27, 3);
    const bombs: [string, Buffer, string][] = [
      ['divergent JPEG', divergentJpeg(small, 13000, 13000), '13000×13000'],
      ['PNG of zeros', await zeroPng(8000, 8000), '8000×8000'],
      ['VP8L', vp8l, '16383×16383'],
      ['animated VP8X', vp8x, '20000×20000'],
    ];
    for (const [name, bytes, size] of bombs) {
      await assert.rejects(checkImageHeader(bytesSource(bytes)), refused(new RegExp(`${size} pixels, at most 50 megapixels`), true), name);
    }
    assert.equal((await checkImageHeader(bytesSource(astronaut))).width, 512);
  });

  it('reads a file only as far as its header', async () => {
    const path = join(dir, 'bomb.png');
    await writeFile(path, await zeroPng(20000, 20000));
    await assert.rejects(checkImageFile(path), refused(/20000×20000 pixels/, true));
    const jpeg = join(dir, 'garbage.jpg');
    // 200 KB of garbage between two segments: the walk reads on through it, as libjpeg does.
    await writeFile(jpeg, beforeSof(astronaut, Array.from({ length: 200_000 }, (_, i) => i % 255)));
    assert.deepEqual(await checkImageFile(jpeg), { format: 'jpeg', width: 512, height: 512 });
  });

  it('the divergent JPEG bomb is refused by the photo decoder without being decoded', async () => {
    const path = join(dir, 'divergent.jpg');
    await writeFile(path, divergentJpeg(small, 13000, 13000));
    const rss = watchRss();
    await assert.rejects(decodePhoto(path, 1024), (error: unknown) => error instanceof NotAnImageError && /13000×13000 pixels, at most 50 megapixels/.test(error.message));
    await assert.rejects(loadCheckedImage(await readFile(path)), refused(/13000×13000/, true));
    const { growth } = rss.stop();
    console.log(`divergent JPEG (13000×13000, would decode to 676 MB): resident memory grew ${mb(growth)}`);
    assert.ok(growth < REFUSAL_RSS_BOUND, `resident memory grew ${mb(growth)}`);
  });

  it('the renderer refuses a 400-megapixel background without decoding it (a job whose background was never checked)', async () => {
    const path = join(dir, 'background.png');
    await writeFile(path, await zeroPng(20000, 20000));
    const [definition] = [...(await builtIns()).values()];
    const rss = watchRss();
    await assert.rejects(FrameRenderer.create(definition!, { backgroundPath: path }), /the background image cannot be used: the image is too large to decode: 20000×20000 pixels, at most 50 megapixels/);
    const { growth } = rss.stop();
    console.log(`400-megapixel PNG background: resident memory grew ${mb(growth)}`);
    assert.ok(growth < REFUSAL_RSS_BOUND, `resident memory grew ${mb(growth)}`);
  });
});
