/**
 * What a photo avatar's mouth does, measured on its frames (test/photo/photo-mouth.test.ts asserts on it, and the
 * photo-render bench prints it): whether the lower face stays the photo's at rest, whether each open viseme really
 * opens the mouth, its corners and its teeth.
 */
import type { PhotoFace } from '../../src/domain/avatar/photo.js';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { VISEME_SHAPES } from '../../src/inference/lipsync/mouth-track.js';
import type { Viseme } from '../../src/inference/lipsync/viseme-model.js';
import { moveFace } from '../../src/inference/photo/face-motion.js';
import { photoDefinition, PhotoFrameRenderer } from '../../src/inference/photo/index.js';
import { insidePolygon, luma } from '../../src/inference/photo/tooth-test.js';
import { lowerFace, ssim } from './helpers.js';
import { PORTRAIT_SIZE as SIZE } from './portraits.js';

/** The visemes that part the lips (all but silence and P/B/M). */
export const OPEN_VISEMES: readonly Viseme[] = ['B', 'C', 'D', 'E', 'F', 'G', 'H'];
/** The visemes whose jaw drops without rounding the lips (open ≥ 0.4): the mouth's dark inside must show more than at rest. */
export const WIDE_OPEN: readonly Viseme[] = ['C', 'D', 'H'];

/** See {@link measureMouth}. */
export interface MouthMeasures {
  /** Whether the photo shows its teeth (the open mouth takes them). */
  showsTeeth: boolean;
  /**
   * The lowest lower-face SSIM over 5 s of silence (every 5th frame) against the covered photo moved rigidly as the
   * frame's head is (turned about the mesh's pivot and shifted: {@link photoMovedLikeHead}): the photo's own mouth,
   * where the head has swayed to.
   */
  silence: number;
  /** The same against the photo unmoved: the head sway's sub-pixel resampling lowers it on sharp, grainy photos. */
  silenceStill: number;
  /** As `silence`, over the frames of `track` whose mouth is at rest, and their count. */
  pauses: number;
  resting: number;
  /** Per open viseme (after a spoken frame): lower-face SSIM against the same frame at rest (1: unchanged). */
  open: Partial<Record<Viseme, number>>;
  /** Per open viseme: how many more pixels inside the lips are dark (below half the lips' luma) than at rest. */
  dark: Partial<Record<Viseme, number>>;
  /** The darkest mean luma near an inner corner of any open viseme, as a share of the lips' luma. */
  corners: number;
  /** The mean colour of the open mouth's brightest pixels in AA (D), and of the mouth's at rest (as many pixels). */
  teethOpen: number[];
  teethRest: number[];
  skin: readonly number[];
}

const lumaAt = (frame: Uint8Array, i: number) => luma(frame[4 * i]!, frame[4 * i + 1]!, frame[4 * i + 2]!);

/** The mean colour of the brightest `count` of `pixels` of `frame`. */
function brightest(frame: Uint8Array, pixels: readonly number[], count: number): number[] {
  const top = [...pixels].sort((p, q) => lumaAt(frame, q) - lumaAt(frame, p)).slice(0, Math.max(1, Math.round(count)));
  return [0, 1, 2].map((k) => top.reduce((sum, i) => sum + frame[4 * i + k]!, 0) / top.length);
}

/** The moved mesh points of `renderer`'s frame `index` with `mouth`. */
const movedPoints = (renderer: PhotoFrameRenderer, index: number, mouth: MouthShape) => moveFace(renderer.mesh, renderer.motionAt(index, mouth), new Float64Array(renderer.mesh.count * 2));

/** The pixels (indices) inside the inner lips of `moved`. */
function insideMouth(renderer: PhotoFrameRenderer, moved: Float64Array): number[] {
  const { mesh } = renderer;
  const ring = [...mesh.innerUpper, ...[...mesh.innerLower].reverse().slice(1, -1)].map((i) => [moved[2 * i]!, moved[2 * i + 1]!] as const);
  const xs = ring.map(([x]) => x);
  const ys = ring.map(([, y]) => y);
  const inside: number[] = [];
  for (let y = Math.floor(Math.min(...ys)); y <= Math.ceil(Math.max(...ys)); y++) {
    for (let x = Math.floor(Math.min(...xs)); x <= Math.ceil(Math.max(...xs)); x++) if (insidePolygon(ring, x + 0.5, y + 0.5)) inside.push(y * SIZE.width + x);
  }
  return inside;
}

/** The darker mean luma of the pixels of `inside` within a tenth of the mouth's width of either inner corner (60, 64). */
function cornerLuma(renderer: PhotoFrameRenderer, moved: Float64Array, frame: Uint8Array, inside: number[]): number {
  let darkest = Infinity;
  for (const corner of [60, 64]) {
    const near = inside.filter((i) => Math.hypot((i % SIZE.width) + 0.5 - moved[2 * corner]!, Math.floor(i / SIZE.width) + 0.5 - moved[2 * corner + 1]!) < 0.1 * renderer.mesh.axes.mouthWidth);
    if (near.length > 0) darkest = Math.min(darkest, near.reduce((sum, i) => sum + lumaAt(frame, i), 0) / near.length);
  }
  return darkest;
}

/**
 * The RGBA `photo` turned by `rotation` about `pivot` and shifted by (`shiftX`, `shiftY`), as the renderer moves the
 * head's mesh points (face-motion.ts), sampled bilinearly: written independently of the renderer's mesh warp, so a
 * resting frame that re-drew the mouth, or moved it unlike the head, would score below 1 against it.
 */
export function photoMovedLikeHead(
  photo: Uint8Array,
  width: number,
  height: number,
  pivot: readonly [number, number],
  motion: { rotation: number; shiftX: number; shiftY: number },
  region: readonly [number, number, number, number] = [0, 0, width, height],
): Uint8Array {
  const out = new Uint8Array(photo.length);
  const cos = Math.cos(motion.rotation);
  const sin = Math.sin(motion.rotation);
  const [px, py] = pivot;
  // Only `region` (x0, y0, x1, y1, grown by the SSIM window) is filled; the rest stays 0.
  const x0r = Math.max(0, Math.floor(region[0]) - 8);
  const y0r = Math.max(0, Math.floor(region[1]) - 8);
  const x1r = Math.min(width, Math.ceil(region[2]) + 8);
  const y1r = Math.min(height, Math.ceil(region[3]) + 8);
  for (let y = y0r; y < y1r; y++) {
    for (let x = x0r; x < x1r; x++) {
      // The source of pixel centre (x, y): the inverse of p' = pivot + R (p - pivot) + shift.
      const dx = x + 0.5 - px - motion.shiftX;
      const dy = y + 0.5 - py - motion.shiftY;
      const sx = Math.min(width - 1, Math.max(0, px + dx * cos + dy * sin - 0.5));
      const sy = Math.min(height - 1, Math.max(0, py - dx * sin + dy * cos - 0.5));
      const x0 = Math.min(width - 2, Math.floor(sx));
      const y0 = Math.min(height - 2, Math.floor(sy));
      const fx = sx - x0;
      const fy = sy - y0;
      const a = 4 * (y0 * width + x0);
      const b = a + 4 * width;
      for (let k = 0; k < 4; k++) {
        const top = photo[a + k]! * (1 - fx) + photo[a + 4 + k]! * fx;
        const bottom = photo[b + k]! * (1 - fx) + photo[b + 4 + k]! * fx;
        out[4 * (y * width + x) + k] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  }
  return out;
}

/** Measures the mouth of a photo avatar of `face` (512×512, 25 fps) at rest, through the speech `track`, and per open viseme. */
export async function measureMouth(face: PhotoFace, track: readonly MouthShape[]): Promise<MouthMeasures> {
  const definition = photoDefinition(face, 25, SIZE);
  const fresh = () => PhotoFrameRenderer.create(definition, face);
  const silent = await fresh();
  const region = lowerFace(silent.mesh);
  const lowerSsim = (frame: Uint8Array, against: Uint8Array) => ssim(frame, against, SIZE.width, SIZE.height, region);

  const restingPhoto = (renderer: PhotoFrameRenderer, index: number, mouth: MouthShape) =>
    photoMovedLikeHead(renderer.base, SIZE.width, SIZE.height, renderer.mesh.pivot, renderer.motionAt(index, mouth), region);

  // Silence (blinks and head sway included).
  let silence = 1;
  let silenceStill = 1;
  for (let index = 0; index < 125; index += 5) {
    const frame = silent.render(index, RESTING_MOUTH);
    silence = Math.min(silence, lowerSsim(frame, restingPhoto(silent, index, RESTING_MOUTH)));
    silenceStill = Math.min(silenceStill, lowerSsim(frame, silent.base));
  }
  // Speech: every frame whose mouth is at rest (the pauses between words and phrases).
  const talking = await fresh();
  let pauses = 1;
  let resting = 0;
  for (const [index, mouth] of track.entries()) {
    const frame = talking.render(index, mouth);
    if (mouth.open > 0.02 || mouth.width > 0.02 || mouth.round > 0.02 || mouth.teeth > 0.02 || mouth.closed < 0.98) continue;
    resting++;
    pauses = Math.min(pauses, lowerSsim(frame, restingPhoto(talking, index, mouth)));
  }

  // Each open viseme after a spoken frame, against the same frame at rest.
  const rest = (await fresh()).render(1, RESTING_MOUTH);
  const restInside = insideMouth(silent, movedPoints(silent, 1, RESTING_MOUTH));
  const { lip, skin } = silent.palette;
  const dark = (frame: Uint8Array, pixels: number[]) => pixels.filter((i) => lumaAt(frame, i) < 0.5 * luma(...lip)).length;
  const measures: MouthMeasures = {
    showsTeeth: silent.photoMouth.showsTeeth,
    silence,
    silenceStill,
    pauses,
    resting,
    open: {},
    dark: {},
    corners: Infinity,
    teethOpen: [],
    teethRest: brightest(rest, restInside, restInside.length / 10),
    skin,
  };
  for (const viseme of OPEN_VISEMES) {
    const renderer = await fresh();
    renderer.render(0, VISEME_SHAPES.C);
    const frame = renderer.render(1, VISEME_SHAPES[viseme]);
    const moved = movedPoints(renderer, 1, VISEME_SHAPES[viseme]);
    const inside = insideMouth(renderer, moved);
    measures.open[viseme] = lowerSsim(frame, rest);
    measures.dark[viseme] = dark(frame, inside) - dark(rest, restInside);
    measures.corners = Math.min(measures.corners, cornerLuma(renderer, moved, frame, inside) / luma(...lip));
    // The teeth: as many of the brightest pixels as a tenth of the inside at rest.
    if (viseme === 'D') measures.teethOpen = brightest(frame, inside, restInside.length / 10);
  }
  return measures;
}
