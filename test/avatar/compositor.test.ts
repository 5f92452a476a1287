import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { drawPixelsOver, fillCovered, over, scaled, SpanLayer } from '../../src/inference/render/compositor.js';
import { coverageStride, PathCoverage } from '../../src/inference/render/raster/path-coverage.js';
import { FrameRenderer } from '../../src/inference/render/frame-renderer.js';
import { idlePoseFor } from '../../src/inference/avatar/idle-motion.js';
import { builtIns } from './helpers.js';

/** A premultiplied pixel word from straight RGBA. */
const word = (r: number, g: number, b: number, a: number) =>
  (Math.round((r * a) / 255) | (Math.round((g * a) / 255) << 8) | (Math.round((b * a) / 255) << 16) | (a << 24)) >>> 0;
const channels = (w: number) => [w & 255, (w >>> 8) & 255, (w >>> 16) & 255, w >>> 24];

test('over() is premultiplied source-over, rounded to the nearest value in every channel', () => {
  let worst = 0;
  for (let k = 0; k < 20000; k++) {
    const s = word((k * 37) % 256, (k * 91) % 256, (k * 13) % 256, (k * 53) % 256);
    const d = word((k * 7) % 256, (k * 29) % 256, (k * 71) % 256, (k * 17) % 256);
    const out = channels(over(s, d));
    const keep = 255 - (s >>> 24);
    channels(s).forEach((c, i) => (worst = Math.max(worst, Math.abs(out[i]! - (c + (channels(d)[i]! * keep) / 255)))));
  }
  assert.ok(worst <= 0.5 + 1e-9, `worst rounding error ${worst}`);
  assert.equal(over(word(10, 20, 30, 255), word(200, 100, 50, 255)), word(10, 20, 30, 255));
  assert.equal(over(0, word(200, 100, 50, 255)), word(200, 100, 50, 255));
});

test('scaled() weakens a premultiplied pixel by an alpha, rounded per channel; over() of it blends by that much', () => {
  const pixel = word(200, 100, 50, 255);
  assert.equal(scaled(pixel, 255), pixel);
  assert.equal(scaled(pixel, 0), 0);
  for (const alpha of [1, 64, 128, 200, 254]) {
    const got = channels(scaled(pixel, alpha));
    channels(pixel).forEach((value, i) => assert.ok(Math.abs(got[i]! - (value * alpha) / 255) <= 0.5 + 1e-9, `alpha ${alpha} channel ${i}`));
  }
  // Half of an opaque red over opaque blue: half of each.
  assert.deepEqual(channels(over(scaled(word(255, 0, 0, 255), 128), word(0, 0, 255, 255))), [128, 0, 127, 255]);
});

test('a span layer composes like blending every pixel, clipped at the frame edges', () => {
  // A layer with opaque runs, soft edges and holes.
  const canvas = createCanvas(40, 30);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#3a6';
  ctx.beginPath();
  ctx.ellipse(20, 15, 17, 12, 0.3, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = 'rgba(200,40,40,0.5)';
  ctx.fillRect(5, 5, 12, 8);
  const rgba = canvas.data();
  const layer = new SpanLayer(rgba, 40, 30);
  const pixels = new Uint32Array(new Uint8Array(rgba).buffer);
  for (const at of [{ x: 10, y: 6 }, { x: -15, y: -9 }, { x: 45, y: 38 }, { x: 70, y: 0 }]) {
    const background = Uint32Array.from({ length: 64 * 48 }, (_, i) => word(i % 256, (i >> 4) % 256, 90, 255));
    const spans = background.slice();
    layer.drawOver(spans, 64, 48, at);
    const each = background.slice();
    drawPixelsOver(each, 64, 48, pixels, 40, 30, at);
    const reference = background.slice();
    for (let y = 0; y < 30; y++) {
      for (let x = 0; x < 40; x++) {
        const fx = at.x + x;
        const fy = at.y + y;
        if (fx >= 0 && fx < 64 && fy >= 0 && fy < 48) reference[fy * 64 + fx] = over(pixels[y * 40 + x]!, reference[fy * 64 + fx]!);
      }
    }
    assert.deepEqual(spans, reference, `spans at ${JSON.stringify(at)}`);
    assert.deepEqual(each, reference, `pixels at ${JSON.stringify(at)}`);
  }
  assert.notDeepEqual(Array.from(pixels).filter((p) => p >>> 24 === 255).length, 0);
  // Clipped to rectangles that cut through soft edges and opaque runs, short and long: only pixels inside change.
  for (const clip of [{ x0: 12, y0: 8, x1: 14, y1: 30 }, { x0: 0, y0: 10, x1: 31, y1: 12 }, { x0: 27, y0: 0, x1: 64, y1: 48 }, { x0: 20, y0: 20, x1: 20, y1: 40 }]) {
    const at = { x: 10, y: 6 };
    const background = Uint32Array.from({ length: 64 * 48 }, (_, i) => word(i % 256, (i >> 4) % 256, 90, 255));
    const spans = background.slice();
    layer.drawOver(spans, 64, 48, at, clip);
    const reference = background.slice();
    for (let fy = clip.y0; fy < clip.y1; fy++) {
      for (let fx = clip.x0; fx < clip.x1; fx++) {
        const x = fx - at.x;
        const y = fy - at.y;
        if (x >= 0 && x < 40 && y >= 0 && y < 30) reference[fy * 64 + fx] = over(pixels[y * 40 + x]!, reference[fy * 64 + fx]!);
      }
    }
    assert.deepEqual(spans, reference, `clipped to ${JSON.stringify(clip)}`);
  }
});

test("fillCovered() puts the paint's pixels where wholly covered, blends them by coverage on the edges and leaves the rest", () => {
  // Two blobs side by side (rows with two covered runs) and one below (rows with one), partly left of the box.
  const path = new PathCoverage();
  path.beginPath();
  // An ellipse of four cubic curves.
  const [cx, cy, rx, ry, k] = [8.3, 9.6, 7.2, 6.1, 0.5523];
  path.moveTo(cx + rx, cy);
  path.bezierCurveTo(cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry);
  path.bezierCurveTo(cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy);
  path.bezierCurveTo(cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry);
  path.bezierCurveTo(cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy);
  path.moveTo(33.7, 4.2);
  path.lineTo(47.1, 11.9);
  path.lineTo(29.4, 16.3);
  path.closePath();
  path.moveTo(-6.5, 20.25);
  path.lineTo(44.5, 22.75);
  path.lineTo(30.2, 33.6);
  path.closePath();
  const box = { x0: 2, y0: 1, x1: 50, y1: 36 };
  const coverage = path.coverage(box).slice();
  const spans = path.rowSpans().slice();
  const paint = { words: Uint32Array.from({ length: 60 * 40 }, (_, i) => word((i * 7) % 256, (i * 3) % 256, 200, 255)), x: -3, y: 0, width: 60, height: 40 };
  const stride = coverageStride(box);
  for (const clip of [{ x0: 0, y0: 0, x1: 64, y1: 48 }, { x0: 5, y0: 3, x1: 36, y1: 25 }, { x0: 40, y0: 0, x1: 41, y1: 48 }]) {
    const background = Uint32Array.from({ length: 64 * 48 }, (_, i) => word(i % 256, (i >> 4) % 256, 90, 255));
    const filled = background.slice();
    fillCovered(filled, 64, { coverage, spans, box, paint, x: paint.x, y: paint.y }, clip);
    const reference = background.slice();
    let wholly = 0;
    let partly = 0;
    for (let y = Math.max(clip.y0, box.y0); y < Math.min(clip.y1, box.y1); y++) {
      for (let x = Math.max(clip.x0, box.x0); x < Math.min(clip.x1, box.x1); x++) {
        const c = coverage[(y - box.y0) * stride + x - box.x0]!;
        const source = paint.words[y * 60 + x + 3]!;
        if (c >= 1) (reference[y * 64 + x] = source), wholly++;
        else if (c > 0) (reference[y * 64 + x] = over(scaled(source, Math.round(c * 255)), reference[y * 64 + x]!)), partly++;
      }
    }
    assert.ok(wholly > 0 && partly > 0, `clip ${JSON.stringify(clip)}: ${wholly} whole and ${partly} partial pixels`);
    assert.deepEqual(filled, reference, `clip ${JSON.stringify(clip)}`);
  }
});

test('a frame composed into a buffer matches the frame drawn on the canvas, up to anti-aliasing', async () => {
  const avatars = await builtIns();
  const mouth = { open: 0.7, width: 0.4, round: 0.2, closed: 0, teeth: 0 };
  for (const def of avatars.values()) {
    const renderer = new FrameRenderer(def);
    // Besides three plain frames, one where the eyes blink and one where they glance (both drawn for the frame).
    const frames = Array.from({ length: def.fps * 20 }, (_, i) => i);
    const blink = frames.find((i) => idlePoseFor(def, i).blink > 0.5);
    const glance = frames.find((i) => idlePoseFor(def, i).blink === 0 && idlePoseFor(def, i).gazeX !== 0);
    assert.ok(blink !== undefined && glance !== undefined, `${def.id}: a blink and a glance within 20 s`);
    for (const frame of [0, 40, 77, blink, glance]) {
      const composed = new Uint8Array(def.width * def.height * 4);
      renderer.renderInto(frame, mouth, composed);
      renderer.draw(frame, mouth);
      const drawn = renderer.canvas.data();
      let differing = 0;
      let total = 0;
      for (let i = 0; i < drawn.length; i++) {
        const d = Math.abs(drawn[i]! - composed[i]!);
        total += d;
        if (d > 2) differing++;
      }
      // Rounding of the blend (±1) everywhere; anti-aliased edge pixels near the jaw may differ more.
      assert.ok(total / drawn.length < 0.1, `${def.id} frame ${frame}: mean difference ${total / drawn.length}`);
      assert.ok(differing < drawn.length * 0.002, `${def.id} frame ${frame}: ${differing} values differ by more than 2`);
    }
  }
});
