/**
 * Plain PCM WAV files read without ffmpeg (src/inference/media/wav-pcm.ts): the samples are ffmpeg's (`-ac 1 -ar
 * 16000`, the lip-sync analysis's decoding) up to float rounding for every sample layout and common rate, files it
 * does not take are left to ffmpeg, and the analysis gives the same mouth track either way.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { openWavPcm } from '../../src/inference/media/wav-pcm.js';
import { parseWavLayout } from '../../src/inference/media/wav-layout.js';
import { Resampler } from '../../src/inference/media/resample.js';
import { wasmKernel } from '../../src/inference/wasm-kernel.js';
import { assertCommittedWasm } from '../helpers/wasm-build.js';
import { analyzeMouth } from '../../src/inference/lipsync/mouth-analysis.js';
import { concatSamples } from '../../src/inference/separation/stft.js';

const dir = mkdtempSync(join(tmpdir(), 'wav-pcm-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let binaries: MediaBinaries;
/** 4 s of espeak-ng speech, as espeak writes it (22.05 kHz, 16-bit mono). */
let speech: string;

before(async () => {
  binaries = await resolveMediaBinaries();
  speech = join(dir, 'speech.wav');
  try {
    execFileSync('espeak-ng', ['-s', '160', '-w', speech, 'Good evening and welcome to the news. Markets were calm, while the weather stayed warm.']);
  } catch (error) {
    // A missing tool fails the test (never skips it): .ci/run installs espeak-ng.
    throw new Error(`espeak-ng could not make the test speech (apt-get install espeak-ng): ${(error as Error).message}`);
  }
});

/** The speech re-encoded by ffmpeg with `args` (rate, channels, sample format) into a WAV. */
function variant(name: string, args: string[]): string {
  const path = join(dir, `${name}.wav`);
  execFileSync(binaries.ffmpegPath, ['-v', 'error', '-y', '-i', speech, ...args, path]);
  return path;
}

/** What the lip-sync analysis got from ffmpeg for `path`: 16 kHz mono floats. */
function ffmpegSamples(path: string, maxSec?: number): Float32Array {
  const cap = maxSec === undefined ? [] : ['-af', 'asetpts=N/SR/TB', '-t', maxSec.toFixed(6)];
  const out = execFileSync(binaries.ffmpegPath, ['-v', 'error', '-i', path, ...cap, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_f32le', '-f', 'f32le', 'pipe:1'], {
    maxBuffer: 1 << 28,
  });
  return new Float32Array(out.buffer, out.byteOffset, out.length / 4);
}

async function collect(pieces: AsyncIterable<Float32Array>): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const piece of pieces) parts.push(Float32Array.from(piece));
  return concatSamples(parts);
}

/** Signal-to-error ratio of `actual` against `expected`, in dB. */
function snrDb(expected: Float32Array, actual: Float32Array): number {
  let signal = 0;
  let error = 0;
  for (let i = 0; i < expected.length; i++) {
    signal += expected[i]! ** 2;
    error += (expected[i]! - actual[i]!) ** 2;
  }
  return 10 * Math.log10(signal / Math.max(error, 1e-30));
}

/** ffmpeg writes samples of more than 16 bits behind a WAVE_FORMAT_EXTENSIBLE header (checked below). */
const LAYOUTS: [string, string[]][] = [
  ['22050 Hz 16-bit mono (espeak)', []],
  ['44100 Hz 16-bit stereo', ['-ar', '44100', '-ac', '2', '-c:a', 'pcm_s16le']],
  ['48000 Hz 24-bit mono', ['-ar', '48000', '-c:a', 'pcm_s24le']],
  ['8000 Hz 8-bit unsigned mono', ['-ar', '8000', '-c:a', 'pcm_u8']],
  ['11025 Hz 32-bit mono', ['-ar', '11025', '-c:a', 'pcm_s32le']],
  ['16000 Hz float mono', ['-ar', '16000', '-c:a', 'pcm_f32le']],
  ['32000 Hz double stereo', ['-ar', '32000', '-ac', '2', '-c:a', 'pcm_f64le']],
  ['24000 Hz 16-bit stereo', ['-ar', '24000', '-ac', '2', '-c:a', 'pcm_s16le']],
];

for (const [name, args] of LAYOUTS) {
  test(`${name}: the samples are ffmpeg's, up to float rounding`, async () => {
    const path = variant(name.replace(/\W+/g, '-'), args);
    const header = readFileSync(path);
    const extensible = header.readUInt16LE(20) === 0xfffe;
    assert.equal(extensible, /(24|32)-bit|float|double/.test(name), 'the header ffmpeg writes for these samples');
    const pieces = await openWavPcm(path, { sampleRate: 16000 });
    assert.ok(pieces, 'read without ffmpeg');
    const mine = await collect(pieces);
    const theirs = ffmpegSamples(path);
    assert.equal(mine.length, theirs.length, 'as many samples');
    const snr = snrDb(theirs, mine);
    assert.ok(snr > 120, `${snr.toFixed(1)} dB from ffmpeg's samples`);
  });
}

test('a WAVE_FORMAT_EXTENSIBLE header (float, stereo) is read as its subformat says', async () => {
  const pcm = variant('float-stereo', ['-ar', '16000', '-ac', '2', '-c:a', 'pcm_f32le']);
  const plain = readFileSync(pcm);
  const layout = parseWavLayout(plain, plain.length)!;
  // The same samples behind a 40-byte extensible fmt chunk.
  const fmt = Buffer.alloc(40);
  fmt.writeUInt16LE(0xfffe, 0);
  fmt.writeUInt16LE(2, 2);
  fmt.writeUInt32LE(16000, 4);
  fmt.writeUInt32LE(16000 * 8, 8);
  fmt.writeUInt16LE(8, 12);
  fmt.writeUInt16LE(32, 14);
  fmt.writeUInt16LE(22, 16);
  fmt.writeUInt16LE(32, 18);
  fmt.writeUInt32LE(3, 20);
  Buffer.from('0300000000001000800000aa00389b71', 'hex').copy(fmt, 24);
  const data = plain.subarray(layout.dataOffset, layout.dataOffset + layout.dataBytes);
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(4 + 8 + fmt.length + 8 + data.length, 4);
  head.write('WAVEfmt ', 8, 'latin1');
  head.writeUInt32LE(fmt.length, 16);
  const dataHead = Buffer.alloc(8);
  dataHead.write('data', 0, 'latin1');
  dataHead.writeUInt32LE(data.length, 4);
  const path = join(dir, 'extensible.wav');
  writeFileSync(path, Buffer.concat([head, fmt, dataHead, data]));
  const mine = await collect((await openWavPcm(path, { sampleRate: 16000 }))!);
  const theirs = ffmpegSamples(path);
  assert.equal(mine.length, theirs.length);
  assert.ok(snrDb(theirs, mine) > 120);
});

test('files that are not plain PCM WAVs are left to ffmpeg', async () => {
  const cases: [string, string[]][] = [
    ['mp3', ['-c:a', 'libmp3lame', '-f', 'mp3']],
    ['adpcm', ['-c:a', 'adpcm_ms', '-f', 'wav']],
    ['three-channels', ['-ac', '3', '-c:a', 'pcm_s16le', '-f', 'wav']],
    ['big-endian-aiff', ['-c:a', 'pcm_s16be', '-f', 'aiff']],
  ];
  for (const [name, args] of cases) {
    const path = join(dir, `${name}.bin`);
    execFileSync(binaries.ffmpegPath, ['-v', 'error', '-y', '-i', speech, ...args, path]);
    assert.equal(await openWavPcm(path, { sampleRate: 16000 }), undefined, name);
  }
  // A rate whose ratio to 16 kHz needs more phases than the resampler builds (16000/gcd = 16000).
  const odd = variant('odd-rate', ['-ar', '22051']);
  assert.equal(await openWavPcm(odd, { sampleRate: 16000 }), undefined, '22051 Hz');
  // Headers that do not add up.
  const plain = readFileSync(speech);
  const truncated = join(dir, 'no-data.wav');
  writeFileSync(truncated, plain.subarray(0, 36));
  assert.equal(await openWavPcm(truncated, { sampleRate: 16000 }), undefined, 'no data chunk');
  const zeroAlign = Buffer.from(plain);
  zeroAlign.writeUInt16LE(0, 32);
  const badAlign = join(dir, 'bad-align.wav');
  writeFileSync(badAlign, zeroAlign);
  assert.equal(await openWavPcm(badAlign, { sampleRate: 16000 }), undefined, 'block align of 0');
});

test('a data size past the end of the file reads what is there; the cap stops where ffmpeg\'s does', async () => {
  const plain = readFileSync(speech);
  const layout = parseWavLayout(plain, plain.length)!;
  // A streamed WAV: the data size left at its maximum, and a last sample cut in half.
  const streamed = Buffer.concat([plain, Buffer.from([7])]);
  streamed.writeUInt32LE(0xffffffff, layout.dataOffset - 4);
  const path = join(dir, 'streamed.wav');
  writeFileSync(path, streamed);
  const all = await collect((await openWavPcm(path, { sampleRate: 16000 }))!);
  assert.equal(all.length, Math.ceil(((layout.dataBytes / 2) * 16000) / 22050));
  const capped = await collect((await openWavPcm(speech, { sampleRate: 16000, maxDurationSec: 1.5 }))!);
  const theirs = ffmpegSamples(speech, 1.5);
  assert.equal(capped.length, theirs.length);
  assert.ok(snrDb(theirs, capped) > 120);
});

test('an aborted read stops with the signal\'s reason', async () => {
  const stop = new AbortController();
  const pieces = (await openWavPcm(speech, { sampleRate: 16000, signal: stop.signal }))!;
  const reason = new Error('stopped');
  await assert.rejects(async () => {
    for await (const _ of pieces) stop.abort(reason);
  }, reason);
});

test('the resampler gives the same samples whatever the pieces it is pushed in', () => {
  const input = Float32Array.from({ length: 10_000 }, (_, i) => Math.sin(i * 0.05) * Math.cos(i * 0.0013));
  const whole = new Resampler(44100, 16000);
  const expected = [...whole.push(input), ...whole.finish()];
  const pieces = new Resampler(44100, 16000);
  const got: number[] = [];
  for (let at = 0; at < input.length; at += 37) got.push(...pieces.push(input.subarray(at, at + 37)));
  got.push(...pieces.finish());
  assert.equal(got.length, Math.ceil((input.length * 16000) / 44100));
  assert.deepEqual(got, expected);
});

test('the resampler computes in WebAssembly what it computes in TypeScript, bit for bit, at every rate it takes to 16 kHz and back', () => {
  assert.ok(wasmKernel('resample'), 'wasm/resample.wasm loads');
  const input = Float32Array.from({ length: 30_011 }, (_, i) => Math.sin(i * 0.05) * Math.cos(i * 0.0013) + 0.3 * Math.sin(i * 1.7));
  for (const [from, to] of [[44100, 16000], [22050, 16000], [48000, 16000], [11025, 16000], [8000, 16000], [96000, 16000], [16000, 44100]] as const) {
    const wasm = new Resampler(from, to);
    const plain = new Resampler(from, to, false);
    const got: number[] = [];
    const expected: number[] = [];
    // Pieces of every size from 1 to 9 000 samples: the input grows past its first room, and is dropped from in place.
    for (let at = 0, size = 1; at < input.length; at += size, size = (size * 7 + 13) % 9000) {
      got.push(...wasm.push(input.subarray(at, at + size)));
      expected.push(...plain.push(input.subarray(at, at + size)));
    }
    got.push(...wasm.finish());
    expected.push(...plain.finish());
    assert.equal(got.length, Math.ceil((input.length * to) / from), `${from} → ${to}`);
    assert.ok(got.some((v) => Math.abs(v) > 0.5), `${from} → ${to}: a signal came out`);
    assert.deepEqual(got, expected, `${from} → ${to}`);
  }
});

test('the committed wasm/resample.wasm is what its source compiles to (npm run build:wasm)', () => assertCommittedWasm('resample'));

test('the lip-sync analysis gives the same mouth track from the WAV reader as from ffmpeg', async () => {
  const path = variant('analysis-44k-stereo', ['-ar', '44100', '-ac', '2']);
  const settings = { binaries };
  const read = await analyzeMouth({ ...settings, readWav: true }, path, 25);
  const decoded = await analyzeMouth({ ...settings, readWav: false }, path, 25);
  assert.equal(read.frames, decoded.frames);
  assert.equal(read.shapes.length, decoded.shapes.length);
  let largest = 0;
  for (let i = 0; i < read.posteriors.length; i++) largest = Math.max(largest, Math.abs(read.posteriors[i]! - decoded.posteriors[i]!));
  assert.ok(largest < 1e-3, `posteriors differ by up to ${largest}`);
  for (let i = 0; i < read.shapes.length; i++) {
    const other = decoded.shapes[i] as unknown as Record<string, number>;
    for (const [key, value] of Object.entries(read.shapes[i]!)) assert.ok(Math.abs(value - other[key]!) < 1e-3, `frame ${i} ${key}`);
  }
});
