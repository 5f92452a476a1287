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
import type { FaceLandmarks } from '../../src/domain/avatar/face-landmarks.js';
import { MIN_FACE_HEIGHT_PX, type PhotoFace } from '../../src/domain/avatar/photo.js';
import { detectFaces } from '../../src/inference/face/detect-faces.js';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { VISEME_SHAPES } from '../../src/inference/lipsync/mouth-track.js';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { photoDefinition, PhotoFrameRenderer } from '../../src/inference/photo/index.js';
import { regionDiff } from '../avatar/helpers.js';
import { boxCentre as centre, cropPortrait, dlibPhoto, type DlibFace } from '../helpers/dlib-faces.js';
import { correlation, headSway, mouthRegion, speechWithPause, ssim, type SpeechWithPause } from './helpers.js';

const SIZE = { width: 512, height: 512 };
const FPS = 25;

/** A person: the photo and the face's box in it (where dlib's annotations or our detector put it). */
interface Portrait {
  what: string;
  file: string;
  box: DlibFace['box'];
}

const PORTRAITS: readonly Portrait[] = [
  { what: 'darker skin, beard, bald (collage)', file: 'bald_guys.jpg', box: { x: 1459, y: 142, width: 270, height: 270 } },
  { what: 'head turned a little, smiling with teeth', file: 'Tom_Cruise_avp_2014_4.jpg', box: { x: 91, y: 325, width: 408, height: 408 } },
  { what: 'glasses', file: '2008_002506.jpg', box: { x: 329, y: 78, width: 109, height: 109 } },
  { what: 'goatee, dark room', file: '2008_002506.jpg', box: { x: 125, y: 65, width: 90, height: 91 } },
  { what: 'older, moustache, grey hair', file: '2008_001322.jpg', box: { x: 344, y: 155, width: 90, height: 90 } },
  { what: 'child, glasses, laughing', file: '2008_001009.jpg', box: { x: 145, y: 79, width: 76, height: 76 } },
];

/** The crop's face: the detected one nearest the crop's centre (the person it was cut around). */
function centralFace(faces: readonly FaceLandmarks[]): FaceLandmarks {
  const mid = SIZE.width / 2;
  const off = (face: FaceLandmarks) => Math.hypot(centre(face.box)[0] - mid, centre(face.box)[1] - mid);
  return [...faces].sort((a, b) => off(a) - off(b))[0]!;
}

describe('photo avatars of real people (libdlib19.1 photos, detected landmarks)', { timeout: 240_000 }, () => {
  let dir: string;
  let speech: SpeechWithPause;
  let track: MouthShape[];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'real-portraits-'));
    speech = speechWithPause(dir, 'Good evening, here is the news.', 'Markets were calm today.');
    track = await new OnnxMouthAnalyzer().analyze(speech.path, FPS, undefined, speech.durationSec);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [n, portrait] of PORTRAITS.entries()) {
    it(`${portrait.file} (${portrait.what}): keeps the person, moves only the head, speaks and rests`, async () => {
      const imagePath = await cropPortrait(dlibPhoto(portrait.file), portrait.box, join(dir, `portrait-${n}.jpg`));
      const { faces } = await detectFaces(imagePath);
      assert.ok(faces.length >= 1, 'a face is found in the crop');
      const landmarks = centralFace(faces);
      assert.ok(landmarks.box.height >= MIN_FACE_HEIGHT_PX, `the face is large enough to animate: ${landmarks.box.height.toFixed(0)} px`);
      const face: PhotoFace = { imagePath, landmarks };
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
