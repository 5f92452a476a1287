/**
 * StftStream: an all-pass mask gives the input back, a zero mask silence, and a mask per frame applies to that frame
 * only, with input pushed in pieces of any size, synthesis lagging the analysis by a few frames or by hundreds (the
 * spectra of frames done with are reused for later ones), for one, two and three channels (three: a pair and one).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StftStream } from '../../src/inference/separation/stft-stream.js';

function input(samples: number, channels: number): Float32Array {
  return Float32Array.from({ length: samples * channels }, (_, i) => Math.sin(i * 0.013 + (i % channels)) * 0.6 + Math.sin(i * 0.41) * 0.2);
}

/**
 * Pushes `x` in pieces, synthesising whenever `lag` frames wait (all but the last 5 analysed, which stay with the
 * stream, as frames whose masks are not known yet); returns the estimate and the input it echoes.
 */
function run(x: Float32Array, channels: number, size: number, lag: number, mask: (t: number) => Float32Array) {
  const stream = new StftStream(channels, size);
  const estimate: Float32Array[] = [];
  const echoed: Float32Array[] = [];
  const take = (end: number) => {
    const out = stream.synthesise(end, mask);
    estimate.push(out.estimate);
    echoed.push(out.input);
  };
  let offset = 0;
  let piece = 1;
  while (offset < x.length / channels) {
    const n = Math.min(piece, x.length / channels - offset);
    stream.push(x.subarray(offset * channels, (offset + n) * channels));
    offset += n;
    piece = (piece * 7 + 3) % 1500;
    if (stream.analysed - stream.synthesised >= lag + 5) take(stream.analysed - 5);
  }
  take(stream.end());
  const join = (parts: Float32Array[]) => Float32Array.from(parts.flatMap((p) => Array.from(p)));
  return { estimate: join(estimate), input: join(echoed) };
}

for (const channels of [1, 2, 3]) {
  for (const lag of [3, 400]) {
    test(`${channels} channel(s), synthesis ${lag} frames behind: all-pass gives the input back, zero silence`, () => {
      const size = 512;
      const bins = size / 2 + 1;
      const x = input(40_000, channels);
      const ones = new Float32Array(bins).fill(1);
      const pass = run(x, channels, size, lag, () => ones);
      assert.equal(pass.estimate.length, x.length);
      assert.deepEqual(pass.input, x, 'the input echoed');
      let worst = 0;
      for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(pass.estimate[i]! - x[i]!));
      assert.ok(worst < 1e-5, `all-pass: off by ${worst}`);
      const zeros = new Float32Array(bins);
      // Frames alternate between all-pass and zero: each frame's mask reaches only its own samples.
      const alternate = run(x, channels, size, lag, (t) => (t < 40 ? ones : zeros));
      const hop = size / 2;
      for (let i = 0; i < (39 * hop - hop) * channels; i++) assert.ok(Math.abs(alternate.estimate[i]! - x[i]!) < 1e-5, `sample ${i} kept`);
      for (let i = (41 * hop) * channels; i < x.length; i++) assert.equal(alternate.estimate[i], 0, `sample ${i} silenced`);
    });
  }
}
