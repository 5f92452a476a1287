import assert from 'node:assert/strict';
import { test } from 'node:test';
import { N_MELS } from '../../src/inference/lipsync/features.js';
import { N_VISEMES, VisemeModel } from '../../src/inference/lipsync/viseme-model.js';
import { golden } from './golden.js';

test('model loads with the documented signature', async () => {
  const model = await VisemeModel.load();
  assert.deepEqual(model.inputNames, ['features']);
  assert.deepEqual(model.outputNames, ['posteriors']);
  for (const frames of [1, 7, 123]) {
    const out = await model.run(new Float32Array(frames * N_MELS).fill(-5), frames);
    assert.equal(out.length, frames * N_VISEMES);
    for (let t = 0; t < frames; t++) {
      const sum = out.subarray(t * N_VISEMES, (t + 1) * N_VISEMES).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-4);
    }
  }
});

test('ONNX posteriors match the PyTorch golden vector', async () => {
  const model = await VisemeModel.load();
  const frames = golden.features.length;
  const out = await model.run(Float32Array.from(golden.features.flat()), frames);
  let maxErr = 0;
  golden.posteriors.forEach((row, t) =>
    row.forEach((v, k) => (maxErr = Math.max(maxErr, Math.abs(out[t * N_VISEMES + k] - v)))),
  );
  assert.ok(maxErr < 1e-4, `max abs error ${maxErr}`);
});

test('chunked inference covers every frame and agrees with a single run', async () => {
  const model = await VisemeModel.load();
  const frames = 900;
  const feats = new Float32Array(frames * N_MELS);
  for (let i = 0; i < feats.length; i++) feats[i] = -8 + 6 * Math.sin(i * 0.37) * Math.sin(i * 0.0011);
  const whole = await model.run(feats, frames);
  const chunked = await model.posteriors(feats, frames, { chunkFrames: 200, leftContext: 100, rightContext: 20 });
  assert.equal(chunked.length, whole.length);
  let mean = 0;
  for (let i = 0; i < whole.length; i++) mean += Math.abs(whole[i] - chunked[i]) / whole.length;
  assert.ok(mean < 0.02, `mean abs difference ${mean}`);
});
