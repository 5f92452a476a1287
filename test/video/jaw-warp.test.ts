/**
 * The jaw warp's mesh (lower-face.ts): its triangles are kept from frame to frame while they stay valid. Over a run of
 * frames whose jaw opens and closes by turns (the chin moved down by up to 0.3 of the eye distance and up by up to
 * 0.2, the head shifting and turning a little, as a talking head does), a frame drawn with kept triangles must
 * have them cover its mesh without a fold: each one counter-clockwise and not flat both at rest and moved, and
 * together as large as the frame's own Delaunay triangulation (the points' hull: no gap); a frame where none is valid
 * gets its own Delaunay triangulation, as every frame did before. Kept triangulations must be reused, not made again
 * for most frames.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { faceAxes } from '../../src/inference/photo/face-axes.js';
import { facePoints } from '../../src/inference/video/face-geometry.js';
import { jawWarp } from '../../src/inference/video/lower-face.js';

const fixture = JSON.parse(readFileSync(new URL('../photo/fixtures/astronaut.landmarks.json', import.meta.url), 'utf8')) as { points: [number, number][] };

/** The fixture's 68 points turned by `angle` about their centre and shifted by (`dx`, `dy`). */
function posed(angle: number, dx: number, dy: number): Float64Array {
  const cx = fixture.points.reduce((s, p) => s + p[0], 0) / fixture.points.length;
  const cy = fixture.points.reduce((s, p) => s + p[1], 0) / fixture.points.length;
  const out = new Float64Array(136);
  fixture.points.forEach(([x, y], i) => {
    out[2 * i] = cx + (x - cx) * Math.cos(angle) - (y - cy) * Math.sin(angle) + dx;
    out[2 * i + 1] = cy + (x - cx) * Math.sin(angle) + (y - cy) * Math.cos(angle) + dy;
  });
  return out;
}

/** Twice the signed area of each triangle of `triangles` over `points`. */
function areas(triangles: Uint16Array, points: Float64Array): number[] {
  const out: number[] = [];
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [triangles[t]!, triangles[t + 1]!, triangles[t + 2]!];
    out.push((points[2 * b]! - points[2 * a]!) * (points[2 * c + 1]! - points[2 * a + 1]!) - (points[2 * b + 1]! - points[2 * a + 1]!) * (points[2 * c]! - points[2 * a]!));
  }
  return out;
}

describe('jaw warp mesh', () => {
  it('keeps its triangles over frames while they stay valid, and they never fold or leave a gap', () => {
    const kept: Uint16Array[] = [];
    const made = new Set<Uint16Array>();
    const frames = 120;
    for (let t = 0; t < frames; t++) {
      const frame = posed(0.06 * Math.sin(t / 9), 3 * Math.sin(t / 7), 2 * Math.cos(t / 11));
      const axes = faceAxes(facePoints(frame));
      // Opening and closing by turns, a few frames each: wide enough moves that a kept triangulation does fold now and then.
      const wave = Math.sin(t / 3.5) * (t % 17 < 9 ? 1 : -1);
      const drop = axes.iod * (wave > 0 ? 0.3 * wave : 0.2 * wave);
      const warp = jawWarp(frame, axes, drop, kept);
      assert.ok(kept.length <= 4 && kept[0] === warp.triangles, 'the triangles drawn with are kept first, at most 4');
      const fresh = jawWarp(frame, axes, drop);
      const reused = made.has(warp.triangles);
      made.add(warp.triangles);
      if (!reused) {
        assert.deepEqual(warp.triangles, fresh.triangles, `frame ${t}: a new triangulation is the frame's Delaunay one`);
        continue;
      }
      for (const points of [warp.rest, warp.moved]) {
        const own = areas(warp.triangles, points);
        assert.ok(own.every((a) => a > 0), `frame ${t}: every triangle counter-clockwise and not flat`);
        const total = own.reduce((s, a) => s + a, 0);
        const hull = areas(fresh.triangles, points).reduce((s, a) => s + Math.abs(a), 0);
        assert.ok(Math.abs(total - hull) < 1e-6 * hull, `frame ${t}: the triangles cover the mesh's hull (${total} against ${hull})`);
      }
    }
    assert.ok(made.size < frames / 2, `triangulated ${made.size} times in ${frames} frames`);
  });
});
