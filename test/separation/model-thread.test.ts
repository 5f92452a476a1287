import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BINS, MODEL_CONTEXT, SeparationModel, StreamingSeparator, concatSamples } from '../../src/inference/separation/index.js';
import { SeparationModelThread } from '../../src/inference/separation/model-thread.js';
import type { MaskModel } from '../../src/inference/separation/model.js';

function magnitudes(frames: number, seed: number): Float32Array {
  return new Float32Array(frames * BINS).map((_, i) => Math.abs(Math.sin(i * 0.013 + seed)) * (1 + (i % 7)));
}

test('the model on its own thread gives the masks of the model on this thread, for runs asked at once, and leaves the callers\' arrays alone', async () => {
  const here = await SeparationModel.load();
  const thread = await SeparationModelThread.load();
  assert.ok(thread instanceof SeparationModelThread, 'a thread starts from the TypeScript sources too');
  assert.equal(await SeparationModelThread.load(), thread, 'one thread per model and options');
  assert.deepEqual(thread.executionProviders, ['cpu']);
  const runs = [628, 1, 300, 628].map((frames, seed) => ({ frames, mag: magnitudes(frames, seed) }));
  const masks = await Promise.all(runs.map(({ mag, frames }) => thread.mask(mag, frames)));
  for (const [i, { mag, frames }] of runs.entries()) {
    assert.equal(mag.length, frames * BINS, 'the caller keeps its magnitudes');
    assert.deepEqual(mag, magnitudes(frames, i));
    assert.deepEqual(masks[i], await here.mask(mag, frames), `run ${i} (${frames} frames)`);
  }
});

test('a model file that cannot be loaded rejects the load with onnxruntime\'s reason, and the next load tries again', async () => {
  const missing = '/nonexistent/separator.onnx';
  await assert.rejects(SeparationModelThread.load(missing), (error: Error) => error.message.includes(missing));
  await assert.rejects(SeparationModelThread.load(missing), (error: Error) => error.message.includes(missing));
});

async function separate(model: MaskModel, x: Float32Array, channels: number, chunkFrames: number): Promise<Float32Array> {
  const sep = new StreamingSeparator(model, channels, { chunkFrames });
  const parts: Float32Array[] = [];
  for (let i = 0; i < x.length; i += 999 * channels) parts.push(await sep.push(x.subarray(i, Math.min(x.length, i + 999 * channels))));
  parts.push(await sep.finish());
  return concatSamples(parts);
}

test('streaming separation with the model on its own thread, one chunk masked while the next is analysed, gives the same samples', async () => {
  const x = new Float32Array(2 * 40_000).map((_, i) => 0.3 * Math.sin(i * 0.021) * Math.sin(i * 0.0007) + 0.02 * Math.sin(i * 1.7));
  const here = await separate(await SeparationModel.load(), x, 2, 1_000_000);
  // Small chunks: dozens of model runs, each queued behind the one before.
  const threaded = await separate(await SeparationModelThread.load(), x, 2, MODEL_CONTEXT - 17);
  assert.equal(threaded.length, x.length);
  let maxErr = 0;
  for (let i = 0; i < x.length; i++) maxErr = Math.max(maxErr, Math.abs(threaded[i]! - here[i]!));
  assert.ok(maxErr < 1e-5, `differs by ${maxErr}`);
});

test('a model run that fails fails the stream at its next push or its finish, and no rejection goes unhandled', async () => {
  let runs = 0;
  const failing: MaskModel = {
    executionProviders: ['cpu'],
    mask: async (_mag, frames) => {
      runs++;
      if (runs === 2) throw new Error('model run 2 failed');
      return new Float32Array(frames * BINS).fill(0.5);
    },
  };
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const x = new Float32Array(30_000).map((_, i) => Math.sin(i * 0.05));
    await assert.rejects(separate(failing, x, 1, 20), /model run 2 failed/);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
