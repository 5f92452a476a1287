import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameRms, loudnessPosteriors, loudnessVisemes, relativeDb } from '../../src/inference/lipsync/loudness-baseline.js';
import { VISEMES } from '../../src/inference/lipsync/viseme-model.js';

test('baseline: silence is X, loud speech-level frames open the mouth', () => {
  const x = new Float32Array(16000);
  for (let n = 8000; n < 16000; n++) x[n] = 0.3 * Math.sin((2 * Math.PI * 200 * n) / 16000);
  const v = loudnessVisemes(x);
  assert.equal(v.length, 100);
  assert.equal(VISEMES[v[10]], 'X');
  assert.notEqual(VISEMES[v[90]], 'X');
  const p = loudnessPosteriors(x);
  assert.equal(p.length, 100 * 9);
  assert.equal(p[10 * 9], 1);
});

test('baseline RMS framing and percentile match numpy conventions', () => {
  const rms = frameRms(Float32Array.from({ length: 320 }, () => 0.5));
  // frame 0 covers samples [-120, 280): 280 of 400 are signal
  assert.ok(Math.abs(rms[0] - 0.5 * Math.sqrt(280 / 400)) < 1e-9);
  const rel = relativeDb(Float64Array.from([1, 10, 100, 1000]));
  // numpy percentile(.., 95) of [0, 20, 40, 60] dB = 57 dB
  assert.ok(Math.abs(rel[3] - 3) < 1e-6, String(rel[3]));
});
