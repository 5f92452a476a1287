import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BINS, HOP, MODEL_CONTEXT, SeparationModel, StreamingSeparator, concatSamples } from '../../src/inference/separation/index.js';

const golden = JSON.parse(readFileSync(new URL('../../models/separation/golden.json', import.meta.url), 'utf8')) as {
  frames: number;
  bins: number;
  mag: number[];
  mask: number[];
};

test('separation model loads with the documented signature and maps [T, 257] to [T, 257] masks in (0, 1)', async () => {
  const model = await SeparationModel.load();
  assert.deepEqual(model.inputNames, ['mag']);
  assert.deepEqual(model.outputNames, ['mask']);
  for (const frames of [1, 5, 300]) {
    const mag = new Float32Array(frames * BINS).map((_, i) => Math.abs(Math.sin(i * 0.01)));
    const mask = await model.mask(mag, frames);
    assert.equal(mask.length, frames * BINS);
    assert.ok(mask.every((m) => m >= 0 && m <= 1));
  }
});

test('ONNX masks match the PyTorch golden vector', async () => {
  const model = await SeparationModel.load();
  assert.equal(golden.bins, BINS);
  const mask = await model.mask(Float32Array.from(golden.mag), golden.frames);
  let maxErr = 0;
  golden.mask.forEach((v, i) => (maxErr = Math.max(maxErr, Math.abs(mask[i] - v))));
  assert.ok(maxErr < 1e-4, `max abs error ${maxErr}`);
});

function signal(n: number, channels: number): Float32Array {
  const x = new Float32Array(n * channels);
  let seed = 1;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < channels; c++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const noise = seed / 2147483648 - 0.5;
      x[i * channels + c] = 0.3 * Math.sin(i * (0.05 + 0.02 * c)) * Math.sin(i * 0.0003) + 0.05 * noise;
    }
  }
  return x;
}

async function run(model: SeparationModel, x: Float32Array, channels: number, chunkFrames: number, piece: number): Promise<Float32Array> {
  const sep = new StreamingSeparator(model, channels, { chunkFrames });
  const parts: Float32Array[] = [];
  for (let i = 0; i < x.length; i += piece * channels) parts.push(await sep.push(x.subarray(i, Math.min(x.length, i + piece * channels))));
  parts.push(await sep.finish());
  return concatSamples(parts);
}

test('streaming separation keeps the length and equals a whole-file run, whatever the chunking', async () => {
  const model = await SeparationModel.load();
  for (const [n, channels] of [[70_001, 1], [HOP * 3, 2], [100, 1], [0, 1]] as const) {
    const x = signal(n, channels);
    const whole = await run(model, x, channels, 1_000_000, 1_000_000);
    assert.equal(whole.length, x.length, `length for n=${n}`);
    const chunked = await run(model, x, channels, MODEL_CONTEXT - 17, 777);
    let maxErr = 0;
    for (let i = 0; i < x.length; i++) maxErr = Math.max(maxErr, Math.abs(whole[i] - chunked[i]));
    assert.ok(maxErr < 1e-5, `n=${n} ch=${channels}: chunked differs by ${maxErr}`);
  }
});

test('an all-pass mask reconstructs the input exactly (STFT/iSTFT round trip)', async () => {
  const ones = { mask: async (_mag: Float32Array, frames: number) => new Float32Array(frames * BINS).fill(1) } as unknown as SeparationModel;
  const x = signal(10_000, 2);
  const y = await run(ones, x, 2, 50, 999);
  let maxErr = 0;
  for (let i = 0; i < x.length; i++) maxErr = Math.max(maxErr, Math.abs(x[i] - y[i]));
  assert.ok(maxErr < 1e-5, `round trip error ${maxErr}`);
});
