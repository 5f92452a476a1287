import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { VISEME_SHAPES } from '../../src/inference/lipsync/mouth-track.js';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { moveFace, type FaceMotion } from '../../src/inference/photo/face-motion.js';
import { photoDefinition, PhotoFrameRenderer } from '../../src/inference/photo/index.js';
import { regionDiff } from '../avatar/helpers.js';
import { astronaut, correlation, headSway, mouthRegion, speechWithPause, ssim } from './helpers.js';

const SIZE = { width: 512, height: 512 };
const face = astronaut();
const definition = photoDefinition(face, 25, SIZE);

/** A mouth track through every viseme's shape, two frames each, with rest before and after. */
const VISEME_TOUR: MouthShape[] = [
  ...Array<MouthShape>(3).fill(RESTING_MOUTH),
  ...Object.values(VISEME_SHAPES).flatMap((shape) => [shape, shape]),
  ...Array<MouthShape>(3).fill(RESTING_MOUTH),
];

const NO_MOTION: FaceMotion = { open: 0, width: 0, round: 0, closed: 0, teeth: 0, blink: 0, rotation: 0, shiftX: 0, shiftY: 0 };
const fresh = () => PhotoFrameRenderer.create(definition, face);

function drawAll(renderer: PhotoFrameRenderer, track: readonly MouthShape[]): Uint8Array[] {
  return track.map((mouth, index) => renderer.render(index, mouth));
}

describe('photo frame renderer', () => {
  let renderer: PhotoFrameRenderer;
  before(async () => {
    renderer = await fresh();
  });

  it('draws the same frames for the same input (and the mouth moves them)', async () => {
    const again = await fresh();
    const hash = (frames: Uint8Array[]) => frames.map((f) => createHash('sha256').update(f).digest('hex'));
    const first = hash(drawAll(renderer, VISEME_TOUR));
    const second = hash(drawAll(again, VISEME_TOUR));
    assert.deepEqual(second, first);
    assert.ok(new Set(first).size > VISEME_TOUR.length / 2, 'the frames differ from one another');
  });

  it('keeps the photo in silence: SSIM against the covered photo >= 0.95, blinks and head motion included', () => {
    let worst = 1;
    for (let index = 0; index < 125; index += 3) {
      worst = Math.min(worst, ssim(renderer.render(index, RESTING_MOUTH), renderer.base, SIZE.width, SIZE.height));
    }
    assert.ok(worst >= 0.95, `lowest SSIM of a silent frame: ${worst.toFixed(4)}`);
  });

  it('sways the head visibly but by no more than a pixel or two (0.5–2.5 px over 10 s)', async () => {
    const sway = headSway(await fresh(), 250);
    assert.ok(sway.max >= 0.5 && sway.max <= 2.5, `largest head motion ${sway.max.toFixed(2)} px (median ${sway.median.toFixed(2)})`);
  });

  it('changes nothing outside the head: every pixel outside the mesh equals the covered photo', () => {
    const { x0, y0, x1, y1 } = renderer.mesh.bounds;
    assert.ok(x1 - x0 < SIZE.width * 0.8 && y1 - y0 < SIZE.height * 0.8, `the animated region is the head: ${JSON.stringify(renderer.mesh.bounds)}`);
    for (const [index, frame] of drawAll(renderer, VISEME_TOUR).entries()) {
      for (let y = 0; y < SIZE.height; y++) {
        for (let x = 0; x < SIZE.width; x++) {
          if (x >= x0 && x < x1 && y >= y0 && y < y1) continue;
          const o = (y * SIZE.width + x) * 4;
          if (frame[o] !== renderer.base[o] || frame[o + 1] !== renderer.base[o + 1] || frame[o + 2] !== renderer.base[o + 2]) {
            assert.fail(`frame ${index}: pixel (${x}, ${y}) outside the head changed`);
          }
        }
      }
    }
  });

  it('shapes the mouth per viseme: open for AA, closed for P/B/M, the photo mouth at rest', async () => {
    const region = mouthRegion(renderer.mesh);
    // Each shape after a spoken frame (so that the rest weight is 0, as in speech).
    const speaking = async (shape: MouthShape) => {
      const talking = await fresh();
      talking.render(0, VISEME_SHAPES.C);
      return talking.render(1, shape);
    };
    const still = (await fresh()).render(1, RESTING_MOUTH);
    const diff = async (shape: MouthShape) => regionDiff(await speaking(shape), still, SIZE.width, ...region);
    const open = await diff(VISEME_SHAPES.D);
    const pbm = await diff(VISEME_SHAPES.A);
    // Closing a smile that shows its teeth hides them, which changes the region too (about a quarter of AA's change).
    assert.ok(open > 2.5 * pbm && open > 8, `AA moves the mouth (${open.toFixed(2)}) far more than P/B/M (${pbm.toFixed(2)})`);
    assert.ok((await diff(VISEME_SHAPES.F)) > 1, 'rounded lips differ from rest');
    // The astronaut smiles with her teeth showing: P/B/M closes her lips, rest keeps the smile.
    assert.ok(pbm > 0.5, `P/B/M closes the smile (${pbm.toFixed(2)})`);
    const { mesh } = renderer;
    const closed = moveFace(mesh, { ...NO_MOTION, closed: 1 }, new Float64Array(mesh.count * 2));
    const atRest = moveFace(mesh, NO_MOTION, new Float64Array(mesh.count * 2));
    for (const [top, bottom] of [[61, 67], [62, 66], [63, 65]] as const) {
      assert.ok(Math.abs(closed[2 * bottom + 1]! - closed[2 * top + 1]!) < 0.5, `inner lips ${top}/${bottom} meet when closed`);
      assert.ok(atRest[2 * bottom + 1]! - atRest[2 * top + 1]! > 4, `inner lips ${top}/${bottom} apart at rest, as photographed`);
    }
  });

  it('moves the mouth with the speech loudness and rests it in the pause (real analysis of espeak-ng speech)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'photo-lips-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const speech = speechWithPause(dir, 'Good evening, here is the news.', 'Markets were calm today.');
    const track = await new OnnxMouthAnalyzer().analyze(speech.path, definition.fps, undefined, speech.durationSec);
    const talking = await fresh();
    const silent = await fresh();
    const region = mouthRegion(talking.mesh);
    // Motion of the mouth region against the same frame with the mouth at rest (same blink and head pose).
    const motion = track.map((mouth, index) => regionDiff(talking.render(index, mouth), silent.render(index, RESTING_MOUTH), SIZE.width, ...region));
    const loudness = speech.loudness(definition.fps).slice(0, motion.length);
    const r = correlation(motion, loudness);
    console.log(`# mouth motion vs loudness r=${r.toFixed(3)}`);
    assert.ok(r >= 0.6, `correlation of mouth motion with loudness: ${r.toFixed(3)}`);
    const [from, to] = speech.pause;
    const pause = motion.slice(Math.ceil((from + 0.5) * definition.fps), Math.floor((to - 0.1) * definition.fps));
    assert.ok(pause.length >= 10 && Math.max(...pause) < 0.5, `the mouth rests in the pause: ${pause.map((m) => m.toFixed(2)).join(' ')}`);
  });
});
