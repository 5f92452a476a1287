/**
 * writeWavPcm16 writes the 16-bit WAV ffmpeg's pcm_s16le encoder writes from the same floats (the same samples, a
 * header any reader takes), and fails as encodeAudio does: rejected, its source destroyed, no file left.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { encodeAudio, probeMedia } from '../../src/inference/media/index.js';
import { parseWavLayout } from '../../src/inference/media/wav-layout.js';
import { pcm16, writeWavPcm16 } from '../../src/inference/media/wav-writer.js';
import { Pcm16Conversion } from '../../src/inference/media/pcm16-wasm.js';
import { assertCommittedWasm } from '../helpers/wasm-build.js';
import { TEST_BINARIES } from '../input/helpers/media-fixtures.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-wav-writer-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/**
 * Stereo floats that exercise the conversion: ties at half a step (rounded to even), the ends of the range and past
 * them (clipped), tiny and negative values, then a second of noise.
 */
function floats(): Float32Array {
  const edges = [0, -0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 32767, 32767.5, 32768, 40000, -32768, -32768.5, -40000, 0.49999, -0.49999].map((v) => v / 32768);
  const noise = Array.from({ length: 2 * 44100 }, (_, i) => Math.sin(i * 0.37) * 0.8 + Math.sin(i * 0.011) * 0.3);
  return Float32Array.from([...edges, ...(edges.length % 2 ? [0] : []), ...noise]);
}

/** `samples` as a stream of f32le chunks of `size` bytes (sizes that split samples included). */
function chunked(samples: Float32Array, size: number): Readable {
  const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(Buffer.from(bytes.subarray(at, at + size)));
  return Readable.from(chunks);
}

/** The 16-bit samples of a PCM WAV file. */
async function samplesOf(path: string): Promise<Int16Array> {
  const bytes = await readFile(path);
  const layout = parseWavLayout(bytes, bytes.length);
  assert.ok(layout, `${path} is a plain PCM WAV`);
  assert.equal(layout.bytesPerSample, 2);
  const data = bytes.subarray(layout.dataOffset, layout.dataOffset + layout.dataBytes);
  return new Int16Array(Uint8Array.from(data).buffer);
}

test('the samples ffmpeg writes from the same floats, with a header ffprobe reads', async () => {
  const input = floats();
  const viaFfmpeg = join(dir, 'ffmpeg.wav');
  await encodeAudio(chunked(input, 65_536), { sampleRate: 44100, channels: 2, format: 'wav', outputPath: viaFfmpeg }, TEST_BINARIES);
  for (const size of [65_536, 4_098, 7]) {
    const here = join(dir, `here-${size}.wav`);
    await writeWavPcm16(chunked(input, size), { sampleRate: 44100, channels: 2, outputPath: here });
    assert.deepEqual(await samplesOf(here), await samplesOf(viaFfmpeg), `chunks of ${size} bytes`);
    const probe = await probeMedia(here, TEST_BINARIES);
    assert.equal(probe.audio?.sampleRate, 44100);
    assert.equal(probe.audio?.channels, 2);
    assert.ok(Math.abs(probe.durationSec - input.length / 2 / 44100) < 0.001, `duration ${probe.durationSec}`);
  }
  const written = await samplesOf(join(dir, 'here-7.wav'));
  // Ties go to the even neighbour; past the ends, clipped.
  assert.deepEqual(Array.from(written.subarray(0, 17)), [0, 0, 0, 2, 2, 0, -2, -2, 32767, 32767, 32767, 32767, -32768, -32768, -32768, 0, 0]);
});

test('mono, and a last sample frame cut short is dropped', async () => {
  const path = join(dir, 'mono.wav');
  const bytes = Buffer.from(new Float32Array([0.25, -0.25, 0.5]).buffer);
  await writeWavPcm16(Readable.from([bytes, Buffer.from([1, 2])]), { sampleRate: 8000, channels: 1, outputPath: path });
  assert.deepEqual(Array.from(await samplesOf(path)), [8192, -8192, 16384]);
  const stereo = join(dir, 'odd.wav');
  await writeWavPcm16(Readable.from([bytes]), { sampleRate: 8000, channels: 2, outputPath: stereo });
  assert.deepEqual(Array.from(await samplesOf(stereo)), [8192, -8192]);
});

test('a source that fails, or an abort, rejects and leaves no file; more than two channels are refused', async () => {
  const folder = await mkdtemp(join(dir, 'fail-'));
  const failing = new PassThrough();
  failing.write(Buffer.alloc(4096));
  setTimeout(() => failing.destroy(new Error('the decoder broke')), 20);
  await assert.rejects(writeWavPcm16(failing, { sampleRate: 8000, channels: 1, outputPath: join(folder, 'a.wav') }), /the decoder broke/);
  const endless = new PassThrough();
  endless.write(Buffer.alloc(4096));
  const stop = new AbortController();
  setTimeout(() => stop.abort(new Error('the job was cancelled')), 20);
  await assert.rejects(writeWavPcm16(endless, { sampleRate: 8000, channels: 1, outputPath: join(folder, 'b.wav'), signal: stop.signal }), /the job was cancelled/);
  assert.ok(endless.destroyed, 'the source is destroyed');
  assert.deepEqual(await readdir(folder), [], 'no file is left');
  await assert.rejects(writeWavPcm16(Readable.from([]), { sampleRate: 8000, channels: 6, outputPath: join(folder, 'c.wav') }), RangeError);
});

test('the WebAssembly conversion gives the TypeScript loop\'s samples, eight at a time and in the tail, NaN as 0', () => {
  const wasm = Pcm16Conversion.create();
  assert.ok(wasm, 'wasm/pcm16.wasm loads (npm run build:wasm builds it)');
  const input = floats();
  for (const length of [input.length, input.length - 3, 7, 1, 0]) {
    const piece = input.subarray(0, length);
    assert.deepEqual(Buffer.from(wasm.convert(piece)), pcm16(piece), `${length} samples`);
  }
  // Handed back, it is the next writer's.
  wasm.release();
  assert.equal(Pcm16Conversion.create(), wasm);
  const odd = Float32Array.from([NaN, 1e30, -1e30, Infinity, -Infinity, 0.25, NaN, 0.5, NaN]);
  assert.deepEqual(Array.from(new Int16Array(Uint8Array.from(wasm.convert(odd)).buffer)), [0, 32767, -32768, 32767, -32768, 8192, 0, 16384, 0]);
  assert.deepEqual(Array.from(new Int16Array(Uint8Array.from(pcm16(odd)).buffer)), [0, 32767, -32768, 32767, -32768, 8192, 0, 16384, 0]);
});

test('the committed wasm/pcm16.wasm is what its source compiles to (npm run build:wasm)', () => assertCommittedWasm('pcm16'));
