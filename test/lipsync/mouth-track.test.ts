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
  for (let i = 0; i < 24; i++) assert.deepEqual(shapes[i], { ...RESTING_MOUTH });
  // Co-articulation: the lips may start towards the vowel in the frame before it (20 ms of anticipation), no more.
  assert.ok(shapes[24].open < 0.1, `anticipation ${shapes[24].open}`);
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

/** Posteriors from `[letter, ms]` runs: `p` on the letter, the rest spread evenly. */
function runs(spec: [string, number][], p = 0.9): Float32Array {
  const seq = spec.map(([v, ms]) => v.repeat(ms / 10)).join('');
  const out = new Float32Array(seq.length * N_VISEMES).fill((1 - p) / (N_VISEMES - 1));
  [...seq].forEach((v, t) => (out[t * N_VISEMES + VISEMES.indexOf(v as never)] = p));
  return out;
}

test('F/V shows its teeth for its sound and no longer: a 300 ms G run fades after 150 ms', () => {
  const fps = 25;
  const spec: [string, number][] = [['X', 200], ['E', 200], ['G', 300], ['E', 300], ['X', 200]];
  const p = runs(spec);
  const frames = p.length / N_VISEMES;
  const shapes = mouthTrack(p, frames, fps, videoFrameCount(frames / 100, fps));
  // G from 0.4 s to 0.7 s (video frames 10–17): teeth on the lip early in it …
  assert.ok(Math.max(...shapes.slice(10, 13).map((s) => s.teeth)) > 0.6, shapes.map((s) => s.teeth.toFixed(2)).join(' '));
  // … gone well before its end (150 ms hold + 30 ms fade + 25 ms release ≈ 0.61 s = frame 15).
  for (const s of shapes.slice(16)) assert.ok(s.teeth < 0.1, shapes.map((s) => s.teeth.toFixed(2)).join(' '));
});

test('a 20 ms flicker of F/V or L does not show; a 20 ms P/B/M closure does', () => {
  const fps = 25;
  for (const [v, key] of [['G', 'teeth'], ['H', 'tongue']] as const) {
    const p = runs([['X', 100], ['C', 200], [v, 20], ['C', 200], ['X', 100]]);
    const frames = p.length / N_VISEMES;
    const shapes = mouthTrack(p, frames, fps, videoFrameCount(frames / 100, fps));
    assert.ok(shapes.every((s) => (s[key] ?? 0) < 0.05), `${v}: ${shapes.map((s) => (s[key] ?? 0).toFixed(2)).join(' ')}`);
  }
  const p = runs([['X', 100], ['C', 200], ['A', 20], ['C', 200], ['X', 100]]);
  const frames = p.length / N_VISEMES;
  const shapes = mouthTrack(p, frames, fps, videoFrameCount(frames / 100, fps));
  assert.ok(shapes.some((s) => s.closed > 0.6 && (s.press ?? 0) > 0.2), shapes.map((s) => `${s.closed.toFixed(2)}/${(s.press ?? 0).toFixed(2)}`).join(' '));
});

test('outside voice activity the mouth rests exactly, whatever the posteriors say', () => {
  const fps = 25;
  // The model hears "speech" all along (room noise taken for B/C); only 1.0–2.0 s is voice.
  const seq = [...'BC'.repeat(150)].join('');
  const p = posteriors(seq);
  const activity = Uint8Array.from({ length: seq.length }, (_, t) => (t >= 100 && t < 200 ? 1 : 0));
  const shapes = mouthTrack(p, seq.length, fps, videoFrameCount(3, fps), {}, activity);
  for (let i = 0; i < 25; i++) assert.deepEqual(shapes[i], { ...RESTING_MOUTH }, `frame ${i}`);
  assert.ok(shapes.slice(26, 49).every((s) => s.open > 0.1), 'open in the voice');
  for (let i = 56; i < 75; i++) assert.deepEqual(shapes[i], { ...RESTING_MOUTH }, `frame ${i}`);
  // Ungated, the same posteriors keep the mouth moving.
  assert.ok(mouthTrack(p, seq.length, fps, 75)[10]!.open > 0.1);
});

test('co-articulation: moving between shapes takes more than one 10 ms step, in both directions', () => {
  const p = runs([['X', 100], ['D', 150], ['F', 150], ['B', 150], ['X', 100]], 1);
  const frames = p.length / N_VISEMES;
  const shapes = mouthTrack(p, frames, 100, frames);
  const jumps = shapes.slice(1).map((s, i) => Math.abs(s.open - shapes[i]!.open) + Math.abs(s.round - shapes[i]!.round) + Math.abs(s.width - shapes[i]!.width));
  // The largest step between two 10 ms frames is well under the distance between the shapes (≥ 0.9).
  assert.ok(Math.max(...jumps) < 0.4, `largest step ${Math.max(...jumps).toFixed(2)}`);
  assert.ok(shapes[38]!.round > 0.8 && shapes[53]!.width > 0.5, 'each shape is reached');
});
