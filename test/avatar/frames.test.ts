import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import { lookOf } from '../../src/domain/avatar/definition.js';
import { idlePoseAt, loopedIdlePoseAt, type IdlePose } from '../../src/inference/avatar/idle-motion.js';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { coverCrop } from '../../src/inference/render/background.js';
import { FrameRenderer } from '../../src/inference/render/frame-renderer.js';
import { faceLayout } from '../../src/inference/render/layout.js';
import { builtIns, hashOf, pixel, regionDiff } from './helpers.js';

const SHAPES: Record<string, MouthShape> = {
  AA: { open: 1, width: 0.2, round: 0, closed: 0, teeth: 0 },
  EE: { open: 0.3, width: 1, round: 0, closed: 0, teeth: 0 },
  OO: { open: 0.35, width: 0, round: 1, closed: 0, teeth: 0 },
  FV: { open: 0.1, width: 0.2, round: 0, closed: 0, teeth: 1 },
  MBP: { open: 0, width: 0, round: 0, closed: 1, teeth: 0 },
};

let avatars: AvatarDefinition[];
before(async () => {
  avatars = [...(await builtIns()).values()];
});

/** The mouth area of `def` in frame pixels (the frames here are 512×512, as the design space). */
function mouthBox(def: AvatarDefinition): [number, number, number, number] {
  const l = faceLayout(lookOf(def));
  return [l.cx - 55, l.mouthY - 30, l.cx + 55, l.mouthY + 45];
}

function eyeBox(def: AvatarDefinition): [number, number, number, number] {
  const l = faceLayout(lookOf(def));
  return [l.cx - l.eyeDx - 30, l.eyeY - 25, l.cx + l.eyeDx + 30, l.eyeY + 20];
}

test('the same frame index gives identical pixels, across renderer instances', () => {
  for (const def of avatars) {
    const a = new FrameRenderer(def);
    const b = new FrameRenderer(def);
    for (const i of [0, 17, 240]) {
      const first = hashOf(a.render(i, SHAPES.AA!));
      a.render(i + 5, SHAPES.OO!); // other frames in between must not matter
      assert.equal(hashOf(a.render(i, SHAPES.AA!)), first, `${def.id} frame ${i} repeatable`);
      assert.equal(hashOf(b.render(i, SHAPES.AA!)), first, `${def.id} frame ${i} equal across instances`);
    }
  }
});

test('idle frames change over time: breathing and sway move the avatar, blinks close the eyes', () => {
  for (const def of avatars) {
    const r = new FrameRenderer(def);
    const hashes = new Set([0, 12, 25, 50].map((i) => hashOf(r.render(i, RESTING_MOUTH))));
    assert.equal(hashes.size, 4, `${def.id}: idle frames differ`);

    const blinkFrame = Array.from({ length: def.fps * 8 }, (_, i) => i).find((i) => idlePoseAt(def, i).blink > 0.9);
    assert.ok(blinkFrame !== undefined, `${def.id} blinks within 8 s`);
    const open = Buffer.from(r.render(blinkFrame - 8, RESTING_MOUTH));
    const shut = r.render(blinkFrame, RESTING_MOUTH);
    const [x0, y0, x1, y1] = eyeBox(def);
    assert.ok(regionDiff(open, shut, def.width, x0, y0, x1, y1) > 8, `${def.id}: eyes close on a blink`);
  }
});

test('blink timing is a pure function of (avatar id, frame index)', () => {
  const def = avatars[0]!;
  const poses = Array.from({ length: 300 }, (_, i) => idlePoseAt(def, i));
  assert.deepEqual(Array.from({ length: 300 }, (_, i) => idlePoseAt(def, i)), poses);
  const other = Array.from({ length: 300 }, (_, i) => idlePoseAt(avatars[1]!, i).blink);
  assert.notDeepEqual(other, poses.map((p) => p.blink), 'different avatars blink at different times');
});

test('mouth shapes change the mouth region: open vs closed a lot, every viseme distinct', () => {
  for (const def of avatars) {
    const r = new FrameRenderer(def);
    const [x0, y0, x1, y1] = mouthBox(def);
    const frames = Object.fromEntries(Object.entries(SHAPES).map(([name, shape]) => [name, Buffer.from(r.render(0, shape))]));
    assert.ok(regionDiff(frames.AA!, frames.MBP!, def.width, x0, y0, x1, y1) > 25, `${def.id}: open vs closed`);
    const names = Object.keys(SHAPES);
    for (const a of names) {
      for (const b of names) {
        if (a >= b) continue;
        const d = regionDiff(frames[a]!, frames[b]!, def.width, x0, y0, x1, y1);
        assert.ok(d > 2, `${def.id}: ${a} vs ${b} differ (${d.toFixed(2)})`);
      }
    }
    // Outside the head the mouth changes nothing.
    assert.equal(regionDiff(frames.AA!, frames.MBP!, def.width, 0, 0, 100, 100), 0);
  }
});

test('a closed P/B/M mouth renders exactly like the resting mouth', () => {
  for (const def of avatars) {
    const r = new FrameRenderer(def);
    assert.equal(hashOf(r.render(3, { ...SHAPES.MBP! })), hashOf(r.render(3, RESTING_MOUTH)));
  }
});

test('out-of-range mouth values are clamped, not drawn wild', () => {
  const r = new FrameRenderer(avatars[0]!);
  const wild = hashOf(r.render(0, { open: 7, width: -3, round: Number.NaN, closed: 0, teeth: 0 }));
  assert.equal(wild, hashOf(r.render(0, { open: 1, width: 0, round: 0, closed: 0, teeth: 0 })));
});

test('frames are opaque by default, transparent around the avatar on request', () => {
  const def = avatars[0]!;
  assert.equal(pixel(new FrameRenderer(def).render(0, RESTING_MOUTH), def.width, 2, 2)[3], 255);
  const clear = new FrameRenderer(def, { transparent: true }).render(0, RESTING_MOUTH);
  assert.equal(pixel(clear, def.width, 2, 2)[3], 0);
  assert.equal(pixel(clear, def.width, 256, 250)[3], 255, 'the face itself is opaque');
});

test('a background image covers the frame: scaled to fill, centred, cropped, not stretched', () => {
  // 1024×256: left half red, right half blue. Cover of 512×512 keeps the middle 256×256, so the
  // frame's left half is red and its right half blue.
  const wide = createCanvas(1024, 256);
  const ctx = wide.getContext('2d');
  ctx.fillStyle = '#ff0000';
  ctx.fillRect(0, 0, 512, 256);
  ctx.fillStyle = '#0000ff';
  ctx.fillRect(512, 0, 512, 256);
  const def = avatars[0]!;
  const frame = new FrameRenderer(def, { background: wide }).render(0, RESTING_MOUTH);
  assert.deepEqual(pixel(frame, def.width, 3, 3), [255, 0, 0, 255]);
  assert.deepEqual(pixel(frame, def.width, 508, 3), [0, 0, 255, 255]);
  assert.deepEqual(coverCrop(wide, 512, 512), { sx: 384, sy: 0, sw: 256, sh: 256 });
  assert.deepEqual(coverCrop({ width: 300, height: 900 }, 640, 360), { sx: 0, sy: 365.625, sw: 300, sh: 168.75 });
});

test('non-square frames keep the avatar centred and whole', () => {
  const def = { ...avatars[0]!, width: 320, height: 180 };
  const frame = new FrameRenderer(def, { transparent: true }).render(0, RESTING_MOUTH);
  assert.equal(frame.length, 320 * 180 * 4);
  assert.equal(pixel(frame, 320, 160, 90)[3], 255, 'face in the middle');
  assert.equal(pixel(frame, 320, 5, 5)[3], 0, 'empty corner');
});

test('a looped idle pose wraps without a jump and never wraps mid-blink', () => {
  for (const def of avatars) {
    const n = 4 * def.fps;
    const poses = Array.from({ length: n + 1 }, (_, i) => loopedIdlePoseAt(def, i, n));
    assert.deepEqual(poses[n], poses[0], 'frame n is frame 0');
    const step = (a: IdlePose, b: IdlePose) => Math.abs(a.headX - b.headX) + Math.abs(a.headY - b.headY) + Math.abs(a.breath - b.breath) + Math.abs(a.headTilt - b.headTilt) * 100;
    const maxStep = Math.max(...poses.slice(1, n).map((p, i) => step(poses[i]!, p)));
    assert.ok(step(poses[n - 1]!, poses[0]!) <= maxStep * 1.5 + 1e-9, 'the wrap is no bigger than an ordinary step');
    assert.equal(poses[n - 1]!.blink, 0);
  }
});

test('FrameRenderer.create reads the background from a file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'va-bg-'));
  try {
    const img = createCanvas(40, 40);
    const ctx = img.getContext('2d');
    ctx.fillStyle = '#00ff00';
    ctx.fillRect(0, 0, 40, 40);
    const path = join(dir, 'bg.png');
    await writeFile(path, await img.encode('png'));
    const def = avatars[0]!;
    const frame = (await FrameRenderer.create(def, { backgroundPath: path })).render(0, RESTING_MOUTH);
    assert.deepEqual(pixel(frame, def.width, 3, 3), [0, 255, 0, 255]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cached layers look like painting every part as vectors: small mean difference, only at edges', () => {
  for (const def of avatars) {
    const cached = new FrameRenderer(def);
    const vector = new FrameRenderer(def, { cacheLayers: false });
    const blinkFrame = Array.from({ length: def.fps * 8 }, (_, i) => i).find((i) => idlePoseAt(def, i).blink > 0.9)!;
    for (const [i, shape] of [[0, RESTING_MOUTH], [37, SHAPES.AA!], [blinkFrame, SHAPES.OO!], [201, SHAPES.FV!]] as const) {
      const a = cached.render(i, shape);
      const b = vector.render(i, shape);
      // Mean over the frame of the summed |ΔR|+|ΔG|+|ΔB|: edges are resampled, nothing moves or goes missing.
      const whole = regionDiff(a, b, def.width, 0, 0, def.width, def.height);
      assert.ok(whole < 1.5, `${def.id} frame ${i}: mean difference ${whole.toFixed(3)}`);
      const [x0, y0, x1, y1] = mouthBox(def);
      assert.ok(regionDiff(a, b, def.width, x0, y0, x1, y1) < 4, `${def.id} frame ${i}: mouth area`);
    }
  }
});
