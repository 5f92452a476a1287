/**
 * Real mouths on photo avatars (issue #22), on real portraits (Debian's libdlib19.1 photos, cut as a user would upload
 * them, landmarks from the built-in detector; the astronaut with hand-placed ones; Grace Hopper as uploaded):
 * - at rest the frame is the photo: the lower face in silence, and in every pause of real speech, keeps the photo's
 *   own mouth (SSIM ≥ 0.95 against the covered photo, head sway included), its smile and teeth too;
 * - every open viseme really opens the mouth (the lower face differs from rest, a dark inside appears);
 * - the open mouth's teeth are the photo's own where it shows them (their colour), or painted in a natural tooth
 *   colour tinted like the skin (never bluish) where it does not;
 * - no black points at the mouth's corners.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PhotoFace } from '../../src/domain/avatar/photo.js';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { VISEME_SHAPES } from '../../src/inference/lipsync/mouth-track.js';
import type { Viseme } from '../../src/inference/lipsync/viseme-model.js';
import { moveFace } from '../../src/inference/photo/face-motion.js';
import { photoDefinition, PhotoFrameRenderer } from '../../src/inference/photo/index.js';
import { insidePolygon, luma, saturation } from '../../src/inference/photo/tooth-test.js';
import { astronaut, lowerFace, newsSpeech, ssim } from './helpers.js';
import { PORTRAIT_SIZE as SIZE, PORTRAITS, portraitFace, portraitPath, uploadedFace, type Portrait } from './portraits.js';

const FPS = 25;
const OPEN_VISEMES: readonly Viseme[] = ['B', 'C', 'D', 'E', 'F', 'G', 'H'];
/** The visemes whose jaw drops without rounding the lips (open ≥ 0.4): the mouth's dark inside must show more than at rest. */
const WIDE_OPEN: readonly Viseme[] = ['C', 'D', 'H'];

interface Case {
  what: string;
  /** Whether the photo shows its teeth (the open mouth takes them), else they are painted. */
  teeth: boolean;
  /** The least lower-face SSIM against the photo at rest (see grace_hopper.jpg). */
  silence: number;
  face: (dir: string, n: number) => Promise<PhotoFace>;
}

const dlib = (portrait: Portrait, teeth: boolean): Case => ({ what: `${portrait.file} (${portrait.what})`, teeth, silence: 0.95, face: (dir, n) => portraitFace(portrait, portraitPath(dir, n)) });

const CASES: readonly Case[] = [
  dlib(PORTRAITS.smiling, true),
  dlib(PORTRAITS.bald, true),
  dlib(PORTRAITS.child, true),
  dlib(PORTRAITS.closed, false),
  dlib(PORTRAITS.closedDim, false),
  { what: 'astronaut (smiling with teeth, hand-placed landmarks)', teeth: true, silence: 0.95, face: async () => astronaut() },
  // A sharp, finely wrinkled face: the idle head sway (under half a pixel here) alone costs SSIM, the mouth is still
  // the photo's (the same photo moved rigidly by 0.5 px: 0.93, by 0.25 px: 0.98).
  { what: 'grace_hopper.jpg (older, mouth closed, uploaded as it is)', teeth: false, silence: 0.9, face: async () => uploadedFace(new URL('../fixtures/faces/grace_hopper.jpg', import.meta.url).pathname) },
];

/** The pixels inside the moved inner lips of `renderer`'s frame `index` with `mouth`, as pixel indices. */
function insideMouth(renderer: PhotoFrameRenderer, index: number, mouth: MouthShape): number[] {
  const { mesh } = renderer;
  const moved = moveFace(mesh, renderer.motionAt(index, mouth), new Float64Array(mesh.count * 2));
  const ring = [...mesh.innerUpper, ...[...mesh.innerLower].reverse().slice(1, -1)].map((i) => [moved[2 * i]!, moved[2 * i + 1]!] as const);
  const xs = ring.map(([x]) => x);
  const ys = ring.map(([, y]) => y);
  const inside: number[] = [];
  for (let y = Math.floor(Math.min(...ys)); y <= Math.ceil(Math.max(...ys)); y++) {
    for (let x = Math.floor(Math.min(...xs)); x <= Math.ceil(Math.max(...xs)); x++) if (insidePolygon(ring, x + 0.5, y + 0.5)) inside.push(y * SIZE.width + x);
  }
  return inside;
}

const lumaAt = (frame: Uint8Array, i: number) => luma(frame[4 * i]!, frame[4 * i + 1]!, frame[4 * i + 2]!);

/** The mean colour of the brightest `count` of `pixels` of `frame`. */
function brightest(frame: Uint8Array, pixels: readonly number[], count: number): number[] {
  const top = [...pixels].sort((p, q) => lumaAt(frame, q) - lumaAt(frame, p)).slice(0, Math.max(1, Math.round(count)));
  return [0, 1, 2].map((k) => top.reduce((sum, i) => sum + frame[4 * i + k]!, 0) / top.length);
}

/** The mean luma of the pixels of `inside` within a tenth of the mouth's width of either inner corner (60, 64). */
function cornerLuma(renderer: PhotoFrameRenderer, frame: Uint8Array, mouth: MouthShape, inside: number[]): number {
  const { mesh } = renderer;
  const moved = moveFace(mesh, renderer.motionAt(1, mouth), new Float64Array(mesh.count * 2));
  let darkest = Infinity;
  for (const corner of [60, 64]) {
    const near = inside.filter((i) => Math.hypot((i % SIZE.width) + 0.5 - moved[2 * corner]!, Math.floor(i / SIZE.width) + 0.5 - moved[2 * corner + 1]!) < 0.1 * mesh.axes.mouthWidth);
    if (near.length > 0) darkest = Math.min(darkest, near.reduce((sum, i) => sum + lumaAt(frame, i), 0) / near.length);
  }
  return darkest;
}

describe('photo avatars: real mouths (issue #22)', { timeout: 300_000 }, () => {
  let dir: string;
  let track: MouthShape[];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'photo-mouth-'));
    ({ track } = await newsSpeech(dir, FPS));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [n, c] of CASES.entries()) {
    it(`${c.what}: rests as the photo, opens with its own teeth or natural painted ones`, async () => {
      const face = await c.face(dir, n);
      const definition = photoDefinition(face, FPS, SIZE);
      const fresh = () => PhotoFrameRenderer.create(definition, face);
      const silent = await fresh();
      const region = lowerFace(silent.mesh);
      const lowerSsim = (frame: Uint8Array) => ssim(frame, silent.base, SIZE.width, SIZE.height, region);

      // Silence (blinks and head sway included): the lower face is the photo's.
      let silence = 1;
      for (let index = 0; index < 125; index += 5) silence = Math.min(silence, lowerSsim(silent.render(index, RESTING_MOUTH)));
      // Real speech: every frame whose mouth is at rest (the pauses between words and phrases) is the photo's too.
      const talking = await fresh();
      let pauses = 1;
      let resting = 0;
      for (const [index, mouth] of track.entries()) {
        const frame = talking.render(index, mouth);
        if (mouth.open > 0.02 || mouth.width > 0.02 || mouth.round > 0.02 || mouth.teeth > 0.02 || mouth.closed < 0.98) continue;
        resting++;
        pauses = Math.min(pauses, lowerSsim(frame));
      }

      // Each open viseme after a spoken frame, against the same frame at rest.
      const rest = (await fresh()).render(1, RESTING_MOUTH);
      const restInside = insideMouth(silent, 1, RESTING_MOUTH);
      const lip = silent.palette.lip;
      const dark = 0.5 * luma(...lip);
      const darkShare = (frame: Uint8Array, pixels: number[]) => pixels.filter((i) => lumaAt(frame, i) < dark).length / Math.max(1, pixels.length);
      const restDark = darkShare(rest, restInside);
      const opened: string[] = [];
      let mostSimilar = 0;
      let fewestDark = Infinity;
      let darkestCorner = Infinity;
      let teethColour: number[] = [];
      for (const viseme of OPEN_VISEMES) {
        const renderer = await fresh();
        renderer.render(0, VISEME_SHAPES.C);
        const frame = renderer.render(1, VISEME_SHAPES[viseme]);
        const similarity = ssim(frame, rest, SIZE.width, SIZE.height, region);
        const inside = insideMouth(renderer, 1, VISEME_SHAPES[viseme]);
        // The dark of the open mouth: pixels darker than half the lips' luma, more of them than at rest.
        const darkPixels = inside.length * darkShare(frame, inside) - restInside.length * restDark;
        mostSimilar = Math.max(mostSimilar, similarity);
        if (WIDE_OPEN.includes(viseme)) fewestDark = Math.min(fewestDark, darkPixels);
        // The corners: the inside within a tenth of the mouth's width of either inner corner, its mean luma.
        darkestCorner = Math.min(darkestCorner, cornerLuma(renderer, frame, VISEME_SHAPES[viseme], inside) / luma(...lip));
        // The teeth: as many of the brightest pixels as a tenth of the inside at rest.
        if (viseme === 'D') teethColour = brightest(frame, inside, restInside.length / 10);
        opened.push(`${viseme} ${similarity.toFixed(3)}/${darkPixels.toFixed(0)}`);
      }
      const restTeeth = brightest(rest, restInside, restInside.length / 10);
      const { skin } = silent.palette;
      const rgb = (c: readonly number[]) => c.map((v) => v.toFixed(0)).join(',');
      console.log(
        `# ${c.what}: lower-face SSIM in silence ≥ ${silence.toFixed(3)}, in ${resting} resting frames of speech ≥ ${pauses.toFixed(3)}; ` +
          `open visemes (SSIM vs rest / new dark px) ${opened.join(', ')}; corners ≥ ${darkestCorner.toFixed(2)} of the lips' luma; ` +
          `teeth in D ${rgb(teethColour)} (at rest ${rgb(restTeeth)}, ${silent.photoMouth.showsTeeth ? "the photo's own" : 'painted'}; skin ${rgb(silent.palette.skin)})`,
      );
      assert.equal(silent.photoMouth.showsTeeth, c.teeth, 'whether the photo shows its teeth');
      assert.ok(silence >= c.silence, `lower-face SSIM in silence: ${silence.toFixed(4)}`);
      assert.ok(resting >= 20, `the speech has resting frames: ${resting}`);
      assert.ok(pauses >= c.silence, `lower-face SSIM in the pauses of speech: ${pauses.toFixed(4)}`);
      assert.ok(mostSimilar < 0.97, `every open viseme changes the lower face: SSIM against rest ≤ ${mostSimilar.toFixed(4)}`);
      assert.ok(fewestDark > 0, `every wide open viseme shows more of the mouth's dark inside than rest: ${fewestDark.toFixed(0)} px`);
      assert.ok(darkestCorner > 0.15, `no black points at the corners: the corners' inside ≥ ${darkestCorner.toFixed(2)} of the lips' luma`);
      if (c.teeth) {
        // The open mouth's teeth are the photo's: its brightest pixels, as at rest.
        const gap = Math.max(...[0, 1, 2].map((k) => Math.abs(teethColour[k]! - restTeeth[k]!)));
        assert.ok(gap <= 20, `the open mouth's teeth ${rgb(teethColour)} are the photo's ${rgb(restTeeth)}`);
      } else {
        // Painted teeth: tinted as warm as the light on the skin, not bluish (see also painted-teeth.test.ts).
        const [r, g, b] = teethColour as [number, number, number];
        assert.ok(r >= g && g > b && r - b >= 0.3 * (skin[0] - skin[2]), `the painted teeth ${rgb(teethColour)} are tinted like the skin ${rgb(skin)}`);
      }
    });
  }
});
