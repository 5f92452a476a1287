/**
 * The seamless blend's membrane (solved coarse to fine): a patch whose light differs from the frame's by a smooth
 * ramp takes the frame's light exactly (the ramp is harmonic, so the membrane is the ramp), and its own texture stays.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blendSeamless } from '../../src/inference/video/seamless-blend.js';

describe('seamless blend', () => {
  for (const [width, height, cell] of [[160, 130, 3], [420, 360, 8], [30, 24, 4]] as const) {
    it(`spreads a ramp of light over a ${width}×${height} patch (cells of ${cell} px) as the ramp itself`, () => {
      const n = width * height;
      const base = new Uint8Array(n * 4);
      const patch = new Uint8Array(n * 4);
      const covered = new Uint8Array(n).fill(1);
      const alpha = new Float32Array(n);
      const texture = (x: number, y: number) => ((x * 7 + y * 13) % 11) - 5;
      const ramp = (x: number, y: number) => 20 + (30 * x) / width - (25 * y) / height;
      // The patch shows inside an ellipse, soft over its outer tenth; the band outside it gives the membrane its values.
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const p = y * width + x;
          const r = Math.hypot((x - width / 2) / (0.35 * width), (y - height / 2) / (0.35 * height));
          alpha[p] = r < 0.9 ? 1 : r < 1 ? (1 - r) / 0.1 : 0;
          for (let c = 0; c < 3; c++) {
            patch[4 * p + c] = 100 + 20 * c + texture(x, y);
            base[4 * p + c] = Math.round(patch[4 * p + c]! + ramp(x, y));
          }
          patch[4 * p + 3] = base[4 * p + 3] = 255;
        }
      }
      const expected = base.slice();
      blendSeamless({ width, height, base, patch, covered, alpha, cell });
      let worst = 0;
      let inside = 0;
      for (let p = 0; p < n; p++) {
        if (alpha[p]! < 1) continue;
        inside++;
        for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(base[4 * p + c]! - expected[4 * p + c]!));
      }
      assert.ok(inside > n / 4);
      assert.ok(worst <= 2, `the patch with the membrane is the frame within 2 grey levels (worst ${worst})`);
    });
  }
});
