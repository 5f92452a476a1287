/**
 * Frames drawn as yuv420p (what the lip-sync engine sends ffmpeg): the conversion matches ffmpeg's own from
 * RGBA, converting only a rectangle or only changed blocks gives the same bytes as converting everything, and a
 * renderer that composes and converts only what changed between frames draws, in any order of frames, exactly
 * what a fresh renderer draws; the WebAssembly conversion the renderer uses gives the TypeScript conversion's bytes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/binaries.js';
import { openVideoEncoder, videoEncoderArgs } from '../../src/inference/media/encode-video.js';
import { rawFrameBytes, yuv420Bytes } from '../../src/inference/media/raw-video.js';
import { FrameRenderer } from '../../src/inference/render/frame-renderer.js';
import { idlePoseFor } from '../../src/inference/avatar/idle-motion.js';
import { rgbaToYuv420 } from '../../src/inference/render/yuv420.js';
import { YuvConversion } from '../../src/inference/render/yuv420-wasm.js';
import type { MouthShape } from '../../src/inference/lipsync/mouth.js';
import { builtIns } from './helpers.js';
import { assertCommittedWasm } from '../helpers/wasm-build.js';

const run = promisify(execFile);
let binaries: MediaBinaries;
let avatars: AvatarDefinition[];

before(async () => {
  binaries = await resolveMediaBinaries();
  avatars = [...(await builtIns()).values()];
});

/** A mouth that changes every frame (and shuts now and then). */
const mouthAt = (i: number): MouthShape => ({
  open: ((Math.sin(i / 2) + 1) / 2) * 0.8,
  width: (i % 7) / 7,
  round: (i % 5) / 5,
  closed: i % 11 === 0 ? 1 : 0,
  teeth: (i % 3) / 3,
});

const words = (rgba: Uint8Array) => new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.byteLength / 4);

test('rgbaToYuv420 converts as ffmpeg does (BT.601, limited range): luma within 1, chroma within a few steps at edges', async () => {
  const [width, height] = [320, 180];
  const rgba = new FrameRenderer({ ...avatars[0]!, width, height }).render(7, mouthAt(7));
  const ours = new Uint8Array(yuv420Bytes(width, height));
  rgbaToYuv420(words(rgba), width, height, ours, { x0: 0, y0: 0, x1: width, y1: height });
  const reference = await ffmpegYuv(rgba, width, height);
  assert.equal(reference.length, ours.length);
  const luma = width * height;
  let worstY = 0;
  let chromaSum = 0;
  for (let i = 0; i < luma; i++) worstY = Math.max(worstY, Math.abs(reference[i]! - ours[i]!));
  for (let i = luma; i < ours.length; i++) chromaSum += Math.abs(reference[i]! - ours[i]!);
  assert.ok(worstY <= 1, `luma differs by up to ${worstY}`);
  assert.ok(chromaSum / (ours.length - luma) < 0.5, `chroma differs by ${chromaSum / (ours.length - luma)} on average`);
});

/** ffmpeg's yuv420p of an RGBA frame, through a temporary file. */
async function ffmpegYuv(rgba: Uint8Array, width: number, height: number): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'va-yuv-'));
  try {
    const input = join(dir, 'frame.rgba');
    await writeFile(input, rgba);
    const { stdout } = await run(
      binaries.ffmpegPath,
      ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-video_size', `${width}x${height}`, '-i', input, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 1 << 24 },
    );
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('rgbaToYuv420 converts only the box it is given, skips blocks equal to the previous pixels, and refuses odd boxes', () => {
  const [width, height] = [64, 48];
  const frame = Uint32Array.from({ length: width * height }, (_, i) => (0xff000000 | (i * 2654435761)) >>> 0);
  const whole = { x0: 0, y0: 0, x1: width, y1: height };
  const full = new Uint8Array(yuv420Bytes(width, height));
  rgbaToYuv420(frame, width, height, full, whole);
  const boxed = new Uint8Array(full.length).fill(7);
  rgbaToYuv420(frame, width, height, boxed, { x0: 10, y0: 4, x1: 30, y1: 20 });
  assert.equal(boxed[0], 7, 'outside the box: untouched');
  assert.equal(boxed[6 * width + 12], full[6 * width + 12], 'inside the box: converted');
  // Changed pixels with `previous`: only their blocks are written, and the result equals a full conversion.
  const previous = frame.slice();
  const next = frame.slice();
  next[5 * width + 9] = 0xff00ff00;
  next[40 * width + 60] = 0xff0000ff;
  const incremental = full.slice();
  rgbaToYuv420(next, width, height, incremental, whole, previous);
  const reference = new Uint8Array(full.length);
  rgbaToYuv420(next, width, height, reference, whole);
  assert.deepEqual(incremental, reference);
  assert.deepEqual(previous, next, 'previous now holds the converted pixels');
  assert.throws(() => rgbaToYuv420(frame, width, height, full, { x0: 1, y0: 0, x1: 10, y1: 10 }), RangeError);
});

test('the WebAssembly conversion loads and gives rgbaToYuv420\'s bytes, box by box and only where pixels changed', () => {
  const [width, height] = [70, 36];
  const conversion = YuvConversion.create(width, height);
  assert.ok(conversion, 'wasm/yuv420.wasm loads (npm run build:wasm builds it)');
  assert.throws(() => YuvConversion.create(71, 36), RangeError);
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0);
  for (let i = 0; i < conversion.words.length; i++) conversion.words[i] = (0xff000000 | random()) >>> 0;
  const bytes = new Uint8Array(yuv420Bytes(width, height));
  const previous = new Uint32Array(width * height);
  // Boxes four pixels wide and two (the step's remainder), at edges of both kinds, then the whole frame.
  const boxes = [
    { x0: 0, y0: 0, x1: 8, y1: 4 },
    { x0: 2, y0: 6, x1: 12, y1: 10 },
    { x0: 10, y0: 2, x1: 16, y1: 36 },
    { x0: 60, y0: 30, x1: 70, y1: 36 },
    { x0: 0, y0: 0, x1: width, y1: height },
  ];
  for (const box of boxes) {
    conversion.convert(box);
    rgbaToYuv420(conversion.words, width, height, bytes, box, previous);
    assert.deepEqual(conversion.bytes, bytes, `box ${JSON.stringify(box)}`);
    assert.deepEqual(conversion.previous, previous);
  }
  // Scattered changes: only their steps are converted again, to the same bytes as TypeScript's.
  for (let n = 0; n < 40; n++) conversion.words[random() % conversion.words.length] = (0xff000000 | random()) >>> 0;
  const whole = { x0: 0, y0: 0, x1: width, y1: height };
  conversion.convert(whole);
  rgbaToYuv420(conversion.words, width, height, bytes, whole, previous);
  assert.deepEqual(conversion.bytes, bytes);
  assert.deepEqual(conversion.previous, previous);
  assert.throws(() => conversion.convert({ x0: 1, y0: 0, x1: 10, y1: 10 }), RangeError);
  assert.throws(() => conversion.convert({ x0: 0, y0: 0, x1: 72, y1: 10 }), RangeError);
});

test('without WebAssembly memory (an address-space limit) the renderer converts in TypeScript, to the same bytes', () => {
  const size = { width: 96, height: 64 };
  const withWasm = new FrameRenderer({ ...avatars[0]!, ...size });
  const expected = new Uint8Array(yuv420Bytes(size.width, size.height));
  // Its conversion is set up at its first frame, here, with WebAssembly.
  withWasm.renderYuv420Into(0, mouthAt(0), expected);
  const api = (globalThis as unknown as { WebAssembly: { Memory: unknown } }).WebAssembly;
  const Memory = api.Memory;
  api.Memory = function failing() {
    throw new RangeError('WebAssembly.Memory(): could not allocate memory');
  };
  try {
    assert.equal(YuvConversion.create(size.width, size.height), undefined);
    const without = new FrameRenderer({ ...avatars[0]!, ...size });
    const yuv = new Uint8Array(expected.length);
    for (const index of [0, 1, 2, 40]) {
      without.renderYuv420Into(index, mouthAt(index), yuv);
      withWasm.renderYuv420Into(index, mouthAt(index), expected);
      assert.ok(Buffer.from(yuv).equals(Buffer.from(expected)), `frame ${index}`);
    }
  } finally {
    api.Memory = Memory;
  }
});

test('a renderer closed after its video hands its yuv420p memory to the next renderer of that size, which draws what a fresh one draws', () => {
  const size = { width: 128, height: 96 };
  const [first, second] = avatars;
  assert.ok(first && second);
  const whole = { x0: 0, y0: 0, x1: size.width, y1: size.height };
  const expectedAt = (def: AvatarDefinition, index: number) => {
    const expected = new Uint8Array(yuv420Bytes(size.width, size.height));
    rgbaToYuv420(words(new FrameRenderer({ ...def, ...size }).render(index, mouthAt(index))), size.width, size.height, expected, whole);
    return expected;
  };
  // Handed back (once, however often), a conversion is the next one made of its size, and of no other.
  const conversion = YuvConversion.create(size.width, size.height);
  assert.ok(conversion);
  conversion.release();
  conversion.release();
  assert.notEqual(YuvConversion.create(size.width + 2, size.height), conversion);
  assert.equal(YuvConversion.create(size.width, size.height), conversion);
  assert.notEqual(YuvConversion.create(size.width, size.height), conversion, 'it was pooled once');
  conversion.release();
  // One avatar's video, closed; the next renderer (another avatar) starts in that memory, which holds its last frame.
  const yuv = new Uint8Array(yuv420Bytes(size.width, size.height));
  const done = new FrameRenderer({ ...first, ...size });
  for (let index = 0; index < 30; index++) done.renderYuv420Into(index, mouthAt(index), yuv);
  done.close();
  const next = new FrameRenderer({ ...second, ...size });
  for (const index of [0, 1, 2, 50]) {
    next.renderYuv420Into(index, mouthAt(index), yuv);
    assert.ok(Buffer.from(yuv).equals(Buffer.from(expectedAt(second, index))), `frame ${index} of the next video`);
  }
  next.close();
  assert.equal(YuvConversion.create(size.width, size.height), conversion, 'the next renderer drew in the memory handed back');
  // A closed renderer may draw again: from a whole frame, in memory of its own.
  done.renderYuv420Into(31, mouthAt(31), yuv);
  assert.ok(Buffer.from(yuv).equals(Buffer.from(expectedAt(first, 31))), 'a closed renderer draws on');
});

test('the committed wasm/yuv420.wasm is what its source compiles to (npm run build:wasm)', () => assertCommittedWasm('yuv420'));

test('a renderer converting only what changed draws exactly what a fresh renderer draws, in order and after jumps', () => {
  for (const def of avatars) {
    const size = { width: 384, height: 216 };
    const incremental = new FrameRenderer({ ...def, ...size });
    const yuv = new Uint8Array(yuv420Bytes(size.width, size.height));
    const rgba = new Uint8Array(size.width * size.height * 4);
    // 60 frames in order (head and body move, the eyes blink), 12 in order into and out of a glance and of a blink
    // (the eyes are drawn for those frames), then jumps back and forth.
    const poses = Array.from({ length: 600 }, (_, i) => idlePoseFor({ ...def, ...size }, i));
    const glance = poses.findIndex((pose, i) => i > 6 && pose.blink === 0 && pose.gazeX !== 0);
    const blink = poses.findIndex((pose, i) => i > 60 && pose.blink > 0);
    assert.ok(glance > 0 && blink > 0, `${def.id}: a glance and a blink within 24 s`);
    const around = (at: number) => Array.from({ length: 12 }, (_, i) => at - 6 + i);
    const order = [...Array.from({ length: 60 }, (_, i) => i), ...around(glance), ...around(blink), 240, 3, 4, 1000, 59];
    for (const index of order) {
      incremental.renderYuv420Into(index, mouthAt(index), yuv);
      const fresh = new FrameRenderer({ ...def, ...size }).render(index, mouthAt(index));
      const expected = new Uint8Array(yuv.length);
      rgbaToYuv420(words(fresh), size.width, size.height, expected, { x0: 0, y0: 0, x1: size.width, y1: size.height });
      assert.ok(Buffer.from(yuv).equals(Buffer.from(expected)), `${def.id} frame ${index}: yuv420p differs from a fresh renderer's`);
      if (index % 10 === 0) {
        incremental.renderInto(index, mouthAt(index), rgba);
        assert.ok(Buffer.from(rgba).equals(fresh), `${def.id} frame ${index}: RGBA differs from a fresh renderer's`);
      }
    }
  }
});

test('drawFormat draws in the renderer\'s own memory, one buffer a format, the bytes renderFormatInto gives; none without a kept frame', () => {
  const def = avatars[0]!;
  const size = { width: 256, height: 144 };
  for (const format of ['yuv420p', 'rgba'] as const) {
    const own = new FrameRenderer({ ...def, ...size });
    const copying = new FrameRenderer({ ...def, ...size });
    const expected = new Uint8Array(rawFrameBytes(format, size.width, size.height));
    let first: Uint8Array | undefined;
    for (let index = 0; index < 40; index++) {
      const bytes = own.drawFormat(format, index, mouthAt(index));
      assert.ok(bytes, `${format} frame ${index}: drawn`);
      first ??= bytes;
      assert.equal(bytes.buffer, first.buffer, `${format} frame ${index}: the same memory`);
      assert.equal(bytes.byteOffset, first.byteOffset);
      copying.renderFormatInto(format, index, mouthAt(index), expected);
      assert.ok(Buffer.from(bytes).equals(Buffer.from(expected)), `${format} frame ${index}: renderFormatInto's bytes`);
    }
    own.close();
  }
  // Without cached layers or with a transparent frame there is no kept frame: the caller draws into its own buffer.
  assert.equal(new FrameRenderer({ ...def, ...size }, { cacheLayers: false }).drawFormat('yuv420p', 0, mouthAt(0)), undefined);
  assert.equal(new FrameRenderer({ ...def, ...size }, { transparent: true }).drawFormat('rgba', 0, mouthAt(0)), undefined);
});

test('the encoder takes yuv420p frames of 1.5 bytes a pixel, for even sizes only', async () => {
  const base = { width: 64, height: 48, fps: 10, outputPath: '/tmp/out.mp4' };
  const args = videoEncoderArgs({ ...base, pixelFormat: 'yuv420p' });
  assert.equal(args[args.indexOf('-pix_fmt') + 1], 'yuv420p');
  assert.equal(rawFrameBytes('yuv420p', 64, 48), 64 * 48 * 1.5);
  assert.throws(() => videoEncoderArgs({ ...base, width: 63, pixelFormat: 'yuv420p' }), RangeError);
  const dir = await mkdtemp(join(tmpdir(), 'va-yuv-enc-'));
  try {
    const encoder = openVideoEncoder({ ...base, pixelFormat: 'yuv420p', outputPath: join(dir, 'out.mp4') }, binaries);
    await assert.rejects(encoder.write(new Uint8Array(64 * 48 * 4)), RangeError, 'an RGBA-sized frame is refused');
    await encoder.write(new Uint8Array(rawFrameBytes('yuv420p', 64, 48)).fill(128));
    await encoder.finish();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
