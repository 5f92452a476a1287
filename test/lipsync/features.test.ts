import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogMelExtractor, N_MELS, logMel, numFrames } from '../../src/inference/lipsync/features.js';
import { golden, goldenSignal } from './golden.js';

test('TS log-mel features match the Python golden vector', () => {
  const feats = logMel(goldenSignal());
  assert.equal(feats.length, golden.features.length * N_MELS);
  let maxErr = 0;
  golden.features.forEach((row, t) =>
    row.forEach((v, m) => (maxErr = Math.max(maxErr, Math.abs(feats[t * N_MELS + m] - v)))),
  );
  assert.ok(maxErr < 1e-3, `max abs error ${maxErr}`);
});

test('streaming in odd-sized pieces equals the whole-signal features', () => {
  const x = goldenSignal();
  const whole = logMel(x);
  const ex = new LogMelExtractor();
  let streamed = 0;
  for (let i = 0, step = 1; i < x.length; i += step, step = (step * 7 + 3) % 613) {
    streamed += ex.push(x.subarray(i, Math.min(x.length, i + step))).length;
  }
  streamed += ex.finish().length;
  assert.equal(streamed, whole.length);
  assert.deepEqual(ex.features(), whole);
});

test('frame count is ceil(samples / 160)', () => {
  assert.equal(numFrames(0), 0);
  assert.equal(logMel(new Float32Array(0)).length, 0);
  assert.equal(logMel(new Float32Array(1)).length, N_MELS);
  assert.equal(logMel(new Float32Array(160)).length, N_MELS);
  assert.equal(logMel(new Float32Array(161)).length, 2 * N_MELS);
  // digital silence sits at the log floor
  assert.ok(Math.abs(logMel(new Float32Array(320))[0] - Math.log(1e-6)) < 1e-5);
});
