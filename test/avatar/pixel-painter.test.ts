import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { parseColour, PixelPainter } from '../../src/inference/render/raster/pixel-painter.js';
import { avatarGeometry, paintMouth } from '../../src/inference/render/avatar-painter.js';
import { lookOf } from '../../src/domain/avatar/definition.js';
import { VISEME_SHAPES } from '../../src/inference/lipsync/mouth-track.js';
import { VISEMES } from '../../src/inference/lipsync/viseme-model.js';
import { builtIns } from './helpers.js';

const alpha = (painter: PixelPainter, x: number, y: number) => painter.pixels[y * painter.width + x]! >>> 24;
const channel = (painter: PixelPainter, x: number, y: number, c: number) => (painter.pixels[y * painter.width + x]! >>> (8 * c)) & 255;

test('a fill covers each pixel by its exact area, in premultiplied RGBA, red in the low byte', () => {
  const painter = new PixelPainter();
  painter.reset(6, 4);
  painter.fillStyle = '#ff8000';
  painter.beginPath();
  painter.moveTo(1.5, 1.25);
  painter.lineTo(4.25, 1.25);
  painter.lineTo(4.25, 3);
  painter.lineTo(1.5, 3);
  painter.fill();
  const expected = [
    [0, 0, 0, 0, 0, 0],
    [0, 0.375, 0.75, 0.75, 0.1875, 0],
    [0, 0.5, 1, 1, 0.25, 0],
    [0, 0, 0, 0, 0, 0],
  ];
  for (let y = 0; y < 4; y++) {
    for (let x = 0; x < 6; x++) {
      const a = Math.round(255 * expected[y]![x]!);
      assert.equal(alpha(painter, x, y), a, `alpha at ${x},${y}`);
      // Premultiplied: red is the alpha, green half of it, blue none.
      assert.ok(Math.abs(channel(painter, x, y, 0) - a) <= 1, `red at ${x},${y}`);
      assert.ok(Math.abs(channel(painter, x, y, 1) - a * (128 / 255)) <= 1, `green at ${x},${y}`);
      assert.equal(channel(painter, x, y, 2), 0, `blue at ${x},${y}`);
    }
  }
});

test('an ellipse under a transform covers its area, and a translucent colour composes source-over', () => {
  const painter = new PixelPainter();
  painter.reset(40, 40);
  painter.setTransform(2, 0, 0, 2, 20, 20);
  painter.fillStyle = '#000';
  painter.beginPath();
  painter.ellipse(0, 0, 6, 4, 0, 0, 2 * Math.PI);
  painter.fill();
  let covered = 0;
  for (let i = 0; i < 40 * 40; i++) covered += (painter.pixels[i]! >>> 24) / 255;
  const area = Math.PI * 12 * 8;
  assert.ok(Math.abs(covered - area) < area * 0.005, `covered ${covered}, area ${area}`);
  // Half-transparent white over the opaque black centre: grey, opaque.
  painter.fillStyle = 'rgba(255, 255, 255, 0.5)';
  painter.fill();
  assert.equal(alpha(painter, 20, 20), 255);
  assert.ok(Math.abs(channel(painter, 20, 20, 0) - 128) <= 1, `red ${channel(painter, 20, 20, 0)}`);
});

test('a stroke with round caps covers the line and its two half discs', () => {
  const painter = new PixelPainter();
  painter.reset(20, 12);
  painter.lineCap = 'round';
  painter.lineJoin = 'round';
  painter.lineWidth = 2;
  painter.strokeStyle = '#fff';
  painter.beginPath();
  painter.moveTo(4, 6);
  painter.lineTo(14, 6);
  painter.stroke();
  let covered = 0;
  for (let i = 0; i < 20 * 12; i++) covered += (painter.pixels[i]! >>> 24) / 255;
  const area = 10 * 2 + Math.PI;
  assert.ok(Math.abs(covered - area) < area * 0.03, `covered ${covered}, expected about ${area}`);
  // Rows 5 and 6 are wholly covered along the line; rows 3 and 8 not at all.
  for (let x = 5; x < 14; x++) {
    assert.equal(alpha(painter, x, 5), 255);
    assert.equal(alpha(painter, x, 6), 255);
    assert.equal(alpha(painter, x, 3), 0);
    assert.equal(alpha(painter, x, 8), 0);
  }
  // As on a canvas: a subpath of one point paints nothing, one of two equal points a round dot.
  painter.reset(20, 12);
  painter.lineCap = painter.lineJoin = 'round';
  painter.lineWidth = 2;
  painter.strokeStyle = '#fff';
  painter.beginPath();
  painter.moveTo(4, 4);
  painter.stroke();
  assert.ok(painter.pixels.every((word) => word === 0), 'a lone point painted');
  painter.lineTo(4, 4);
  painter.stroke();
  // A disc of radius 1 about a pixel corner: a quarter of it in each of the four pixels around.
  for (const [x, y] of [[3, 3], [4, 3], [3, 4], [4, 4]] as const) assert.ok(Math.abs(alpha(painter, x, y) - 255 * (Math.PI / 4)) < 8, `pixel ${x},${y}: ${alpha(painter, x, y)}`);
  assert.equal(alpha(painter, 1, 3), 0);
});

test('a clip limits what is painted until restore, and restore brings back the styles and the transform', () => {
  const painter = new PixelPainter();
  painter.reset(10, 10);
  painter.fillStyle = '#00f';
  painter.save();
  painter.translate(2, 2);
  painter.beginPath();
  painter.roundRect(0, 0, 4, 4, [0]);
  painter.clip();
  painter.fillStyle = '#f00';
  painter.beginPath();
  painter.roundRect(-2, -2, 10, 10, 1);
  painter.fill();
  painter.restore();
  assert.equal(painter.fillStyle, '#00f');
  for (let y = 0; y < 10; y++) {
    for (let x = 0; x < 10; x++) {
      const inside = x >= 2 && x < 6 && y >= 2 && y < 6;
      assert.equal(painter.pixels[y * 10 + x], inside ? 0xff0000ff : 0, `pixel ${x},${y}`);
    }
  }
  // No clip and no translation now: the whole picture is painted.
  painter.beginPath();
  painter.roundRect(0, 0, 10, 10, 0);
  painter.fill();
  assert.equal(painter.pixels[0], 0xffff0000);
  assert.equal(painter.pixels[99], 0xffff0000);
});

test('colours are read as a canvas reads them; what the painter cannot paint throws instead of painting something else', () => {
  assert.deepEqual(parseColour('#abc'), [0xaa, 0xbb, 0xcc, 1]);
  assert.deepEqual(parseColour('#4B1619'), [0x4b, 0x16, 0x19, 1]);
  assert.deepEqual(parseColour('rgba(150,130,120,0.28)'), [150, 130, 120, 0.28]);
  assert.deepEqual(parseColour('rgb(1, 2, 3)'), [1, 2, 3, 1]);
  assert.throws(() => parseColour('red'), TypeError);
  const painter = new PixelPainter();
  painter.reset(4, 4);
  painter.beginPath();
  painter.moveTo(0, 1);
  painter.lineTo(3, 1);
  // A canvas's default caps are butt caps: not painted here.
  assert.throws(() => painter.stroke(), /round caps/);
  assert.throws(() => painter.fill('evenodd'), /non-zero/);
  assert.throws(() => painter.roundRect(0, 0, -2, 2, 1), RangeError);
  painter.fillStyle = 'hsl(0, 100%, 50%)';
  assert.throws(() => painter.fill(), /cannot read the colour/);
  assert.ok(painter.pixels.every((word) => word === 0), 'nothing painted');
});

test("every avatar's mouth painted here matches the canvas's, up to anti-aliasing", async () => {
  for (const def of (await builtIns()).values()) {
    const g = avatarGeometry(lookOf(def));
    const [width, height, scale] = [160, 100, 1.5];
    const [dx, dy] = [width / 2 - scale * g.l.cx, height / 2 - scale * g.l.mouthY];
    for (const viseme of VISEMES) {
      const canvas = createCanvas(width, height);
      const ctx = canvas.getContext('2d');
      ctx.setTransform(scale, 0, 0, scale, dx, dy);
      paintMouth(ctx, g, VISEME_SHAPES[viseme]);
      const expected = canvas.data();
      const painter = new PixelPainter();
      painter.reset(width, height);
      painter.setTransform(scale, 0, 0, scale, dx, dy);
      paintMouth(painter, g, VISEME_SHAPES[viseme]);
      const got = new Uint8Array(painter.pixels.buffer, 0, width * height * 4);
      let painted = 0;
      let difference = 0;
      let far = 0;
      for (let i = 0; i < expected.length; i++) {
        const d = Math.abs(expected[i]! - got[i]!);
        difference += d;
        if (d > 16) far++;
        if (i % 4 === 3 && expected[i]! > 0) painted++;
      }
      // Measured: at most 3.9 levels on average and 7.3 % of the values off by more than 16 (edge pixels, where the
      // canvas's anti-aliasing approximates the area this painter computes).
      const label = `${def.id} ${viseme}`;
      assert.ok(painted > 1000, `${label}: the canvas painted ${painted} pixels`);
      assert.ok(difference / (4 * painted) < 5, `${label}: mean difference ${difference / (4 * painted)}`);
      assert.ok(far < 0.1 * 4 * painted, `${label}: ${far} values off by more than 16`);
    }
  }
});
