/**
 * `yuvSquareToRgba`, the tracker's view of a square of a yuv420p frame, against the definition it implements: each
 * output pixel the box-filtered mean of the frame pixels its taps fall on, computed per pixel here (the function
 * computes the taps' positions once per row and column), on random frames and squares inside, across and outside
 * the frame, at 1 to 4 taps.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { yuvSquareToRgba } from '../../src/inference/video/yuv-pixels.js';

/** The definition, pixel by pixel. */
function reference(frame: Uint8Array, width: number, height: number, x: number, y: number, side: number, size: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(size * size * 4);
  const step = side / size;
  const taps = Math.max(1, Math.min(4, Math.round(step)));
  const cw = width >> 1;
  const uPlane = width * height;
  const vPlane = uPlane + cw * (height >> 1);
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const o = (j * size + i) * 4;
      let yy = 0;
      let uu = 0;
      let vv = 0;
      let n = 0;
      for (let b = 0; b < taps; b++) {
        for (let a = 0; a < taps; a++) {
          const fy = Math.floor(y + (j + (b + 0.5) / taps) * step);
          const fx = Math.floor(x + (i + (a + 0.5) / taps) * step);
          if (fy < 0 || fy >= height || fx < 0 || fx >= width) continue;
          yy += frame[fy * width + fx]!;
          uu += frame[uPlane + (fy >> 1) * cw + (fx >> 1)]!;
          vv += frame[vPlane + (fy >> 1) * cw + (fx >> 1)]!;
          n++;
        }
      }
      out[o + 3] = 255;
      if (n === 0) continue;
      const c = 298 * (yy / n - 16);
      out[o] = (c + 409 * (vv / n - 128) + 128) / 256;
      out[o + 1] = (c - 100 * (uu / n - 128) - 208 * (vv / n - 128) + 128) / 256;
      out[o + 2] = (c + 516 * (uu / n - 128) + 128) / 256;
    }
  }
  return out;
}

/** A deterministic pseudo-random yuv420p frame. */
function randomFrame(width: number, height: number, seed: number): Uint8Array {
  const frame = new Uint8Array(width * height * 1.5);
  let state = seed;
  for (let i = 0; i < frame.length; i++) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    frame[i] = state >>> 24;
  }
  return frame;
}

describe('yuvSquareToRgba', () => {
  it('gives the box filter’s pixels for squares inside, across and outside the frame, at 1 to 4 taps', () => {
    const [width, height] = [360, 288];
    const frame = randomFrame(width, height, 7);
    const squares = [
      { x: 40, y: 30, side: 200, size: 200 }, // one tap
      { x: 40.5, y: 30.25, side: 300, size: 192 }, // 1.56 → 2 taps, fractional corner
      { x: 0, y: -36, side: 360, size: 120 }, // the whole frame padded, 3 taps
      { x: -100, y: 150, side: 320, size: 80 }, // across two edges, 4 taps
      { x: 10, y: 10, side: 1000, size: 100 }, // more than 4 pixels a tap: 4 taps
      { x: 500, y: 500, side: 64, size: 32 }, // wholly outside: black
      { x: 100, y: 100, side: 50, size: 160 }, // scaled up
    ];
    for (const { x, y, side, size } of squares) {
      const got = yuvSquareToRgba(frame, width, height, x, y, side, size);
      assert.deepEqual(got, reference(frame, width, height, x, y, side, size), `square ${side} at (${x}, ${y}) as ${size}`);
    }
  });
});
