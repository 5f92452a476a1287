import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { coverageStride, PathCoverage, type PathSink } from '../../src/inference/render/raster/path-coverage.js';
import { headOutline } from '../../src/inference/render/parts/head.js';
import { avatarGeometry } from '../../src/inference/render/avatar-painter.js';
import { lookOf } from '../../src/domain/avatar/definition.js';
import { builtIns } from './helpers.js';

/** The coverage of `box` as rows of plain numbers (the stride's extra cell dropped). */
function rows(path: PathCoverage, box: { x0: number; y0: number; x1: number; y1: number }): number[][] {
  const values = path.coverage(box);
  const stride = coverageStride(box);
  return Array.from({ length: box.y1 - box.y0 }, (_, r) => Array.from(values.subarray(r * stride, r * stride + box.x1 - box.x0)));
}

/** A closed polygon through `points` (x, y pairs) added to `sink`'s path. */
function polygon(sink: PathSink, ...points: number[]): void {
  sink.moveTo(points[0]!, points[1]!);
  for (let i = 2; i < points.length; i += 2) sink.lineTo(points[i]!, points[i + 1]!);
  sink.closePath();
}

test('a rectangle on fractional coordinates covers each pixel by its exact area', () => {
  const path = new PathCoverage();
  path.beginPath();
  path.moveTo(1.5, 1.25);
  path.lineTo(4.25, 1.25);
  path.lineTo(4.25, 3);
  path.lineTo(1.5, 3);
  const got = rows(path, { x0: 0, y0: 0, x1: 6, y1: 4 });
  const expected = [
    [0, 0, 0, 0, 0, 0],
    [0, 0.375, 0.75, 0.75, 0.1875, 0],
    [0, 0.5, 1, 1, 0.25, 0],
    [0, 0, 0, 0, 0, 0],
  ];
  for (let r = 0; r < 4; r++) for (let c = 0; c < 6; c++) assert.ok(Math.abs(got[r]![c]! - expected[r]![c]!) < 1e-6, `pixel ${c},${r}: ${got[r]![c]} not ${expected[r]![c]}`);
});

test('a triangle: the coverage sums to its area, whichever way it is wound, and parts left of the box still count', () => {
  const triangle = (sink: PathSink, clockwise: boolean) => {
    sink.beginPath();
    sink.moveTo(2.3, 1.7);
    if (clockwise) {
      sink.lineTo(17.9, 6.2);
      sink.lineTo(5.1, 14.6);
    } else {
      sink.lineTo(5.1, 14.6);
      sink.lineTo(17.9, 6.2);
    }
    sink.closePath();
  };
  const area = Math.abs((17.9 - 2.3) * (14.6 - 1.7) - (5.1 - 2.3) * (6.2 - 1.7)) / 2;
  for (const clockwise of [true, false]) {
    const path = new PathCoverage();
    triangle(path, clockwise);
    const sum = rows(path, { x0: 0, y0: 0, x1: 20, y1: 16 }).flat().reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - area) < 1e-3, `sum ${sum} vs area ${area}`);
    // The right half of the box alone: every pixel as in the whole box (the left part's edges still count).
    const whole = rows(path, { x0: 0, y0: 0, x1: 20, y1: 16 });
    const right = rows(path, { x0: 9, y0: 3, x1: 20, y1: 16 });
    for (let r = 0; r < right.length; r++) {
      for (let c = 0; c < right[r]!.length; c++) assert.ok(Math.abs(right[r]![c]! - whole[r + 3]![c + 9]!) < 1e-6);
    }
  }
});

test("the row spans name each row's covered pixels and, where they are one run, its wholly covered ones", () => {
  const path = new PathCoverage();
  path.beginPath();
  // A triangle, and beside it a square over whole pixels whose rows share full runs with the triangle's.
  polygon(path, 2.3, 1.7, 17.9, 6.2, 5.1, 14.6);
  polygon(path, 21, 4, 26, 4, 26, 9, 21, 9);
  const box = { x0: 0, y0: 0, x1: 30, y1: 18 };
  const values = rows(path, box);
  const spans = path.rowSpans();
  let twoRuns = 0;
  let oneRun = 0;
  values.forEach((row, r) => {
    const [a, b, c, d] = Array.from(spans.subarray(r * 4, r * 4 + 4));
    const covered = row.flatMap((v, x) => (v > 0 ? [x] : []));
    if (covered.length === 0) return assert.equal(a, d, `row ${r} is empty`);
    assert.deepEqual([a, d], [covered[0], covered[covered.length - 1]! + 1], `row ${r}: covered extent`);
    const full = row.flatMap((v, x) => (v === 1 ? [x] : []));
    const oneFullRun = full.length > 0 && full[full.length - 1]! - full[0]! + 1 === full.length;
    if (oneFullRun) {
      oneRun++;
      assert.deepEqual([b, c], [full[0], full[full.length - 1]! + 1], `row ${r}: wholly covered run`);
    } else {
      if (full.length > 0) twoRuns++;
      assert.deepEqual([b, c], [a, a], `row ${r}: no wholly covered run is claimed`);
    }
  });
  assert.ok(oneRun > 0 && twoRuns > 0, `${oneRun} rows with one full run, ${twoRuns} with two`);
});

test('the transform applies as a canvas applies it: translate and rotate about a point', () => {
  const a = new PathCoverage();
  const b = new PathCoverage();
  a.setTransform(2, 0, 0, 2, 3, 4);
  a.translate(5, 5);
  a.rotate(Math.PI / 2);
  a.translate(-5, -5);
  a.beginPath();
  polygon(a, 5, 5, 8, 5, 8, 6, 5, 6);
  // The same rectangle turned a quarter about (5, 5), scaled by 2 and moved by (3, 4): x from 11 to 13, y from 14 to 20.
  b.beginPath();
  polygon(b, 11, 14, 13, 14, 13, 20, 11, 20);
  const box = { x0: 8, y0: 12, x1: 16, y1: 22 };
  assert.deepEqual(rows(a, box).map((row) => row.map((v) => Math.round(v * 1e6) / 1e6)), rows(b, box));
  assert.equal(rows(b, box).flat().reduce((x, y) => x + y, 0), 12);
});

/**
 * The head's outline as a dense polygon (each curve at 1 000 evenly spaced parameters), under the transform a canvas
 * reports: the reference the coverage is checked against is computed from it by a different method.
 */
class DenseOutline implements PathSink {
  readonly points: [number, number][] = [];
  /** The transform, as a canvas's context reports it: x' = a·x + c·y + e, y' = b·x + d·y + f. */
  constructor(private readonly m: { a: number; b: number; c: number; d: number; e: number; f: number }) {}
  beginPath(): void {
    this.points.length = 0;
  }
  moveTo(x: number, y: number): void {
    this.points.push(this.at(x, y));
  }
  lineTo(x: number, y: number): void {
    this.points.push(this.at(x, y));
  }
  quadraticCurveTo(cx: number, cy: number, x: number, y: number): void {
    const [x0, y0] = this.last();
    const [x1, y1] = this.at(cx, cy);
    const [x2, y2] = this.at(x, y);
    for (let i = 1; i <= 1000; i++) {
      const t = i / 1000;
      this.points.push([(1 - t) ** 2 * x0 + 2 * (1 - t) * t * x1 + t * t * x2, (1 - t) ** 2 * y0 + 2 * (1 - t) * t * y1 + t * t * y2]);
    }
  }
  bezierCurveTo(ax: number, ay: number, bx: number, by: number, x: number, y: number): void {
    const [x0, y0] = this.last();
    const [x1, y1] = this.at(ax, ay);
    const [x2, y2] = this.at(bx, by);
    const [x3, y3] = this.at(x, y);
    for (let i = 1; i <= 1000; i++) {
      const t = i / 1000;
      const u = 1 - t;
      this.points.push([u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3, u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3]);
    }
  }
  closePath(): void {}
  private last(): [number, number] {
    return this.points[this.points.length - 1]!;
  }
  private at(x: number, y: number): [number, number] {
    const { a, b, c, d, e, f } = this.m;
    return [a * x + c * y + e, b * x + d * y + f];
  }

  /**
   * The covered area of pixel row `y`, columns `x0 … x1 − 1`: along 64 horizontal lines through the row, the length
   * of each line inside the polygon within each pixel (exact along the line), averaged.
   */
  rowCoverage(y: number, x0: number, x1: number): number[] {
    const out = new Array<number>(x1 - x0).fill(0);
    const { points } = this;
    // The polygon's edges that reach into the row.
    const edges = points.flatMap((a, i) => {
      const b = points[(i + 1) % points.length]!;
      return Math.max(a[1], b[1]) >= y && Math.min(a[1], b[1]) <= y + 1 ? [[a, b] as const] : [];
    });
    for (let k = 0; k < 64; k++) {
      const ly = y + (k + 0.5) / 64;
      const crossings: number[] = [];
      for (const [[ax, ay], [bx, by]] of edges) {
        if (ay <= ly === by <= ly) continue;
        crossings.push(ax + ((ly - ay) / (by - ay)) * (bx - ax));
      }
      crossings.sort((p, q) => p - q);
      for (let i = 0; i + 1 < crossings.length; i += 2) {
        for (let x = Math.max(x0, Math.floor(crossings[i]!)); x < Math.min(x1, Math.ceil(crossings[i + 1]!)); x++) {
          out[x - x0]! += (Math.min(x + 1, crossings[i + 1]!) - Math.max(x, crossings[i]!)) / 64;
        }
      }
    }
    return out;
  }
}

test("a head's outline: within a level of its true coverage, where a canvas's own anti-aliasing strays several times further", async () => {
  const avatars = await builtIns();
  for (const def of avatars.values()) {
    const g = avatarGeometry(lookOf(def));
    for (const [scale, tilt, drop] of [[1, 0, 0], [2.1, 0.02, 14], [1.4, -0.0025, 3.3]] as const) {
      const place = (sink: { setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void; translate(x: number, y: number): void; rotate(a: number): void }, ox: number, oy: number) => {
        sink.setTransform(scale, 0, 0, scale, ox, oy);
        sink.translate(g.l.cx, g.pivotY);
        sink.rotate(tilt);
        sink.translate(-g.l.cx, -g.pivotY);
      };
      // The chin: rows from the head's middle down past the dropped jaw, across the whole head.
      const x0 = Math.floor((g.l.cx - g.l.rx * 1.1) * scale);
      const x1 = Math.ceil((g.l.cx + g.l.rx * 1.1) * scale);
      const y0 = Math.floor(g.l.cy * scale);
      const y1 = Math.ceil((g.l.cy + g.l.ry + 20) * scale);
      const W = x1 - x0;
      const canvas = createCanvas(W, y1 - y0);
      const ctx = canvas.getContext('2d');
      place(ctx, 0, 0);
      const dense = new DenseOutline(ctx.getTransform());
      headOutline(dense, g.look, g.l, drop);
      place(ctx, -x0, -y0);
      headOutline(ctx, g.look, g.l, drop);
      ctx.fillStyle = '#ffffff';
      ctx.fill();
      const canvasPixels = canvas.data();
      const path = new PathCoverage();
      place(path, 0, 0);
      headOutline(path, g.look, g.l, drop);
      const ours = rows(path, { x0, y0, x1, y1 });
      let edges = 0;
      let ourError = 0;
      let ourWorst = 0;
      let canvasError = 0;
      for (let y = y0; y < y1; y++) {
        const truth = dense.rowCoverage(y, x0, x1).map((v) => v * 255);
        for (let x = 0; x < W; x++) {
          if (truth[x]! < 0.01 || truth[x]! > 254.99) continue;
          edges++;
          const error = Math.abs(ours[y - y0]![x]! * 255 - truth[x]!);
          ourError += error;
          ourWorst = Math.max(ourWorst, error);
          canvasError += Math.abs(canvasPixels[((y - y0) * W + x) * 4 + 3]! - truth[x]!);
        }
      }
      const what = `${def.id} at ×${scale}, tilt ${tilt}, jaw ${drop}`;
      assert.ok(edges > 50, `${what}: ${edges} edge pixels`);
      assert.ok(ourError / edges < 1, `${what}: mean error ${(ourError / edges).toFixed(2)} levels`);
      assert.ok(ourWorst < 4, `${what}: worst error ${ourWorst.toFixed(2)} levels`);
      assert.ok(canvasError / edges > 3 * (ourError / edges), `${what}: the canvas (${(canvasError / edges).toFixed(2)} levels) is not several times further off`);
    }
  }
});
