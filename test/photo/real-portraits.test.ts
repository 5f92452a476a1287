/**
 * Photo avatars of real people (Debian's libdlib19.1 photos, test/helpers/dlib-faces.ts): each portrait is cropped
 * from its photo as a user would upload it, its landmarks come from the built-in detector (not from hand marks), and
 * the photo renderer must keep the person (SSIM in silence), move only the head, open the mouth for speech and rest
 * it in pauses. Darker and lighter skin, beards, a moustache, glasses, a child, an older face, a head turned a little.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MIN_FACE_HEIGHT_PX } from '../../src/domain/avatar/photo.js';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { VISEME_SHAPES } from '../../src/inference/lipsync/mouth-track.js';
import { photoDefinition, PhotoFrameRenderer } from '../../src/inference/photo/index.js';
import { regionDiff } from '../avatar/helpers.js';
import { correlation, headSway, mouthRegion, newsSpeech, ssim, type SpeechWithPause } from './helpers.js';
import { PORTRAIT_SIZE, PORTRAITS, portraitFace, portraitPath, type Portrait } from './portraits.js';

const SIZE = PORTRAIT_SIZE;
const FPS = 25;

const CASES: readonly Portrait[] = [PORTRAITS.bald, PORTRAITS.smiling, PORTRAITS.glasses, PORTRAITS.goatee, PORTRAITS.moustache, PORTRAITS.child];

describe('photo avatars of real people (libdlib19.1 photos, detected landmarks)', { timeout: 240_000 }, () => {
  let dir: string;
  let speech: SpeechWithPause;
  let track: MouthShape[];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'real-portraits-'));
    ({ speech, track } = await newsSpeech(dir, FPS));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [n, portrait] of CASES.entries()) {
    it(`${portrait.file} (${portrait.what}): keeps the person, moves only the head, speaks and rests`, async () => {
      const face = await portraitFace(portrait, portraitPath(dir, n));
      const { landmarks } = face;
      assert.ok(landmarks.box.height >= MIN_FACE_HEIGHT_PX, `the face is large enough to animate: ${landmarks.box.height.toFixed(0)} px`);
      const definition = photoDefinition(face, FPS, SIZE);
      const talking = await PhotoFrameRenderer.create(definition, face);
      const silent = await PhotoFrameRenderer.create(definition, face);

      // The head sways as far on screen whatever the face's size (MOTION_IOD_SHARE): visibly, and by a pixel or two.
      const sway = headSway(await PhotoFrameRenderer.create(definition, face), 250);
      assert.ok(sway.max >= 0.5 && sway.max <= 2.5, `the head sways by ${sway.max.toFixed(2)} px at most (median ${sway.median.toFixed(2)})`);

      let worst = 1;
      for (let index = 0; index < 125; index += 5) worst = Math.min(worst, ssim(silent.render(index, RESTING_MOUTH), silent.base, SIZE.width, SIZE.height));

      const { x0, y0, x1, y1 } = talking.mesh.bounds;
      if (landmarks.box.height < SIZE.height / 2) assert.ok(x1 - x0 < SIZE.width * 0.9 && y1 - y0 < SIZE.height * 0.9, `the animated region is the head: ${JSON.stringify(talking.mesh.bounds)}`);
      const region = mouthRegion(talking.mesh);
      const motion: number[] = [];
      for (const [index, mouth] of track.entries()) {
        const frame = talking.render(index, mouth);
        motion.push(regionDiff(frame, silent.render(index, RESTING_MOUTH), SIZE.width, ...region));
        if (index % 10 === 0) {
          for (let y = 0; y < SIZE.height; y += 2) {
            for (let x = 0; x < SIZE.width; x += 2) {
              if (x >= x0 && x < x1 && y >= y0 && y < y1) continue;
              const o = (y * SIZE.width + x) * 4;
              if (frame[o] !== talking.base[o] || frame[o + 1] !== talking.base[o + 1] || frame[o + 2] !== talking.base[o + 2]) {
                assert.fail(`frame ${index}: pixel (${x}, ${y}) outside the head changed`);
              }
            }
          }
        }
      }
      const r = correlation(motion, speech.loudness(FPS).slice(0, motion.length));
      const [from, to] = speech.pause;
      const pause = motion.slice(Math.ceil((from + 0.5) * FPS), Math.floor((to - 0.1) * FPS));
      // AA after a spoken frame (so that the rest weight is 0, as in speech) against the same frame at rest.
      const opener = await PhotoFrameRenderer.create(definition, face);
      opener.render(0, VISEME_SHAPES.C);
      const open = regionDiff(opener.render(1, VISEME_SHAPES.D), silent.render(1, RESTING_MOUTH), SIZE.width, ...region);
      console.log(`# ${portrait.file} (${portrait.what}): face ${landmarks.box.height.toFixed(0)} px, sway ≤ ${sway.max.toFixed(2)} px, silence SSIM ≥ ${worst.toFixed(3)}, motion/loudness r=${r.toFixed(2)}, AA ${open.toFixed(1)}, pause max ${Math.max(...pause).toFixed(2)}`);
      assert.ok(worst >= 0.95, `lowest SSIM of a silent frame: ${worst.toFixed(4)}`);
      assert.ok(open > 8, `AA opens the mouth: ${open.toFixed(2)}`);
      assert.ok(r >= 0.6, `correlation of mouth motion with loudness: ${r.toFixed(3)}`);
      assert.ok(pause.length >= 10 && Math.max(...pause) < 0.5, `the mouth rests in the pause: ${pause.map((m) => m.toFixed(2)).join(' ')}`);
    });
  }
});
