import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESTING_MOUTH } from '../../src/inference/lipsync/mouth.js';
import { mouthTrack, videoFrameCount } from '../../src/inference/lipsync/mouth-track.js';
import { N_VISEMES, VISEMES } from '../../src/inference/lipsync/viseme-model.js';

/** One-hot posteriors from a string of viseme letters, one letter per 10 ms. */
function posteriors(seq: string): Float32Array {
  const p = new Float32Array(seq.length * N_VISEMES);
  [...seq].forEach((v, t) => (p[t * N_VISEMES + VISEMES.indexOf(v as never)] = 1));
  return p;
}

test('silence gives the resting mouth; speech opens it within one video frame', () => {
  const seq = 'X'.repeat(100) + 'D'.repeat(60) + 'X'.repeat(100);
  const fps = 25;
  const shapes = mouthTrack(posteriors(seq), seq.length, fps, videoFrameCount(2.6, fps));
  assert.equal(shapes.length, 65);
  for (let i = 0; i < 25; i++) assert.deepEqual(shapes[i], { ...RESTING_MOUTH });
  // speech starts at 1.0 s = video frame 25: open by that frame or the next
  assert.ok(shapes[25].open > 0.3 || shapes[26].open > 0.5, `open ${shapes[25].open}, ${shapes[26].open}`);
  assert.ok(shapes[30].open > 0.8 && shapes[30].closed < 0.1);
  // closed again well after the end (1.6 s = frame 40), released smoothly
  assert.ok(shapes[41].open > shapes[44].open);
  for (let i = 50; i < 65; i++) assert.ok(shapes[i].open < 0.02 && shapes[i].closed > 0.98);
});

test('a 30 ms bilabial closure inside speech is visible at 25 fps', () => {
  const seq = 'X'.repeat(20) + 'D'.repeat(40) + 'A'.repeat(3) + 'D'.repeat(40) + 'X'.repeat(20);
  const fps = 25;
  const all = mouthTrack(posteriors(seq), seq.length, fps, videoFrameCount(seq.length / 100, fps));
  assert.equal(all.length, 31);
  const speech = all.slice(6, 25);
  assert.ok(speech.some((s) => s.closed > 0.6), JSON.stringify(speech.map((s) => s.closed)));
});

test('frame count is ceil(duration * fps) for fractional rates', () => {
  assert.equal(videoFrameCount(1, 29.97), 30);
  assert.equal(videoFrameCount(2, 25), 50);
  assert.equal(videoFrameCount(2.0001, 25), 51);
  assert.equal(videoFrameCount(0, 30), 0);
  const seq = 'X'.repeat(10);
  assert.equal(mouthTrack(posteriors(seq), 10, 60, 7).length, 7);
  assert.throws(() => mouthTrack(posteriors(seq), 10, 0, 1));
});
