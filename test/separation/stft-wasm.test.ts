/**
 * The STFT's frame transforms in WebAssembly (stft-wasm.ts) give fft.js's values: the windowed FFT of any channel of
 * interleaved frames, the inverse of a pair of spectra and of one, masked or not, at every size the separation uses
 * and the smallest and largest the kernel takes; sizes it does not take fall back to fft.js; the committed module is
 * what its source compiles to.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameTransform } from '../../src/inference/separation/stft.js';
import { StftKernel } from '../../src/inference/separation/stft-wasm.js';
import { assertCommittedWasm } from '../helpers/wasm-build.js';

/** Deterministic noise in [-1, 1) plus a loud tone, `length` values. */
function signal(length: number, seed: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length }, (_, i) => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return (state / 2 ** 31 - 1) * 0.5 + Math.sin(i * 0.3) * 0.8;
  });
}

/** The largest difference between `a` and `b`, relative to the largest magnitude in `b`. */
function relativeError(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let error = 0;
  let peak = 0;
  for (let i = 0; i < a.length; i++) {
    error = Math.max(error, Math.abs(a[i]! - b[i]!));
    peak = Math.max(peak, Math.abs(b[i]!));
  }
  assert.ok(peak > 0, 'the reference is not all zeros');
  return error / peak;
}

for (const size of [8, 16, 512, 1024, 2048, 4096]) {
  test(`a ${size}-point frame: the WebAssembly transforms give fft.js's values`, () => {
    const wasm = new FrameTransform(size);
    const js = new FrameTransform(size, false);
    assert.ok(StftKernel.forSize(size, wasm.window), 'wasm/stft.wasm loads (npm run build:wasm builds it)');
    for (const stride of [1, 2, 6]) {
      const src = signal((size + 5) * stride, size + stride);
      for (let channel = 0; channel < stride; channel++) {
        const a = new Float32Array(2 * wasm.bins);
        const b = new Float32Array(2 * js.bins);
        wasm.analyze(src, 3, stride, channel, a);
        js.analyze(src, 3, stride, channel, b);
        assert.ok(relativeError(a, b) <= 1e-6, `analyze: ${size} points, channel ${channel} of ${stride}`);
      }
    }
    const specA = signal(2 * js.bins, 1);
    const specB = signal(2 * js.bins, 2);
    const [outA, outB, refA, refB] = Array.from({ length: 4 }, () => new Float32Array(size));
    wasm.synthesizePair(specA, specB, outA!, outB!);
    js.synthesizePair(specA, specB, refA!, refB!);
    assert.ok(relativeError(outA!, refA!) <= 1e-6, 'synthesizePair: the first signal');
    assert.ok(relativeError(outB!, refB!) <= 1e-6, 'synthesizePair: the second signal');
    wasm.synthesize(specB, outA!);
    js.synthesize(specB, refA!);
    assert.ok(relativeError(outA!, refA!) <= 1e-6, 'synthesize');
    // With a mask of gains in [0, 1]: as the spectra multiplied by it first.
    const mask = signal(js.bins, 3).map((v) => Math.abs(v) / 1.3);
    const maskedA = specA.map((v, i) => v * mask[i >> 1]!);
    const maskedB = specB.map((v, i) => v * mask[i >> 1]!);
    wasm.synthesizePair(specA, specB, outA!, outB!, mask);
    js.synthesizePair(maskedA, maskedB, refA!, refB!);
    assert.ok(relativeError(outA!, refA!) <= 1e-6 && relativeError(outB!, refB!) <= 1e-6, 'synthesizePair with a mask');
    js.synthesizePair(specA, specB, outA!, outB!, mask);
    assert.ok(relativeError(outA!, refA!) <= 1e-6 && relativeError(outB!, refB!) <= 1e-6, 'synthesizePair with a mask (fft.js)');
    wasm.synthesize(specA, outA!, mask);
    js.synthesize(specA, refA!, mask);
    assert.ok(relativeError(outA!, refA!) <= 1e-6, 'synthesize with a mask');
    // A mask after none, none after a mask: the kernel keeps no mask between calls.
    wasm.synthesize(specA, outA!);
    js.synthesize(specA, refA!);
    assert.ok(relativeError(outA!, refA!) <= 1e-6, 'synthesize without a mask after one with');
  });
}

test('a frame analysed and synthesised in WebAssembly comes back (the squared window sums to one at 50 % overlap)', () => {
  const size = 1024;
  const ft = new FrameTransform(size);
  const x = signal(4 * size, 7);
  const spec = new Float32Array(2 * ft.bins);
  const frame = new Float32Array(size);
  const y = new Float32Array(x.length);
  for (let offset = 0; offset + size <= x.length; offset += size / 2) {
    ft.analyze(x, offset, 1, 0, spec);
    ft.synthesize(spec, frame);
    for (let i = 0; i < size; i++) y[offset + i]! += frame[i]!;
  }
  // Away from the first and last half frame, every sample is covered by two frames.
  for (let i = size / 2; i < x.length - size / 2; i++) assert.ok(Math.abs(y[i]! - x[i]!) < 1e-5, `sample ${i}: ${y[i]} against ${x[i]}`);
});

test('sizes the kernel does not take are computed with fft.js', () => {
  for (const size of [4, 1000, 131_072]) assert.equal(StftKernel.forSize(size, new Float32Array(size)), undefined, `${size} points`);
  const ft = new FrameTransform(4);
  const out = new Float32Array(2 * ft.bins);
  ft.analyze(Float32Array.of(1, 1, 1, 1), 0, 1, 0, out);
  // The periodic sqrt-Hann window of 4 points is (0, √½, 1, √½): the sum of 1 + √2 at bin 0.
  assert.ok(Math.abs(out[0]! - (1 + Math.SQRT2)) < 1e-6);
});

test('the committed wasm/stft.wasm is what its source compiles to (npm run build:wasm)', () => assertCommittedWasm('stft'));
