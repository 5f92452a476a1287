import type { Rgb } from './face-palette.js';
import { boxOf } from './local-curve.js';

/** Inner lip landmarks, in order round the mouth's inside. */
const INNER_RING = [60, 61, 62, 63, 64, 65, 66, 67] as const;
/**
 * Tooth candidates inside the photo's inner lips, against the lips' saturation and luma: loose ones (a dim tooth in a
 * dark mouth) and strict ones (white). The photo shows teeth when the loose ones fill a fifth of its inside or the
 * strict ones 6 % (and {@link MIN_TEETH_PX} pixels). Measured on the real portraits of test/photo (inner lips as
 * detected): smiles with teeth 0.43–0.85 loose, 0.12–0.54 strict; a laughing child in shade 0.23 and 0.02; two closed
 * mouths, whose contour holds lip, 0.13 and 0 at most (a lip's shine is pale, but pinker than a tooth).
 */
const LOOSE = { saturation: 0.66, luma: 1.1, share: 0.2 } as const;
const STRICT = { saturation: 0.5, luma: 1, share: 0.06 } as const;
const MIN_TEETH_PX = 8;
/** Darker than this share of the lips' luma is the mouth's dark inside, not teeth. */
const DARK = 0.5;
/**
 * Lips less saturated than this carry no colour to tell teeth by (a black-and-white photo; the real portraits' lips:
 * 0.30–0.56): teeth are then the pixels at least {@link GREY_TEETH_LUMA} times as light as the lips, and the strict
 * share applies. Measured on the real portraits of test/photo made grey: teeth that show fill 0.09–0.48 of the inside
 * at that luma, the closed mouths none.
 */
const MIN_LIP_SATURATION = 0.1;
const GREY_TEETH_LUMA = 1.3;

export const luma = (r: number, g: number, b: number): number => 0.299 * r + 0.587 * g + 0.114 * b;
/** HSV saturation, 0–1. */
export const saturation = (r: number, g: number, b: number): number => {
  const max = Math.max(r, g, b);
  return max <= 0 ? 0 : (max - Math.min(r, g, b)) / max;
};

/**
 * Tells the photo's teeth from its lips: teeth are far less saturated than lips, even in the lips' shade (measured on
 * the real portraits of test/photo: the teeth's saturation 0.10–0.30 where the lips' is 0.30–0.48), so a pixel is a
 * tooth's when its saturation lies on the teeth's side of halfway between the lips' and the teeth's, and it is not
 * dark (the inside of an open mouth, where saturation means little).
 */
export interface ToothTest {
  /** The teeth's mean colour (the bright, pale pixels inside the photo's inner lips). */
  teeth: Rgb;
  maxSaturation: number;
  minLuma: number;
}

/**
 * The tooth test of the covered photo `pixels` whose landmarks (`x, y` per point, first 68) are `points`, with lips of
 * colour `lip`; undefined where the photo's inner lips hold no teeth (a closed mouth, or an open one that shows only
 * its dark inside).
 */
export function toothTest(pixels: Uint8Array, width: number, height: number, points: Float64Array, lip: Rgb): ToothTest | undefined {
  const ring = INNER_RING.map((i) => [points[2 * i]!, points[2 * i + 1]!] as [number, number]);
  const box = boxOf(points, INNER_RING, 0, width, height);
  const lipLuma = luma(...lip);
  if (!(lipLuma > 0)) return undefined;
  const lipSaturation = saturation(...lip);
  const grey = lipSaturation < MIN_LIP_SATURATION;
  let inside = 0;
  const loose = { sum: [0, 0, 0], count: 0 };
  const strict = { sum: [0, 0, 0], count: 0 };
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0; x <= box.x1; x++) {
      if (!insidePolygon(ring, x + 0.5, y + 0.5)) continue;
      inside++;
      const o = (y * width + x) * 4;
      const r = pixels[o]!;
      const g = pixels[o + 1]!;
      const b = pixels[o + 2]!;
      const light = luma(r, g, b) / lipLuma;
      if (grey) {
        if (light >= GREY_TEETH_LUMA) add(strict, r, g, b);
        continue;
      }
      const sat = saturation(r, g, b) / lipSaturation;
      for (const [kind, limits] of [[loose, LOOSE], [strict, STRICT]] as const) {
        if (sat > limits.saturation || light < limits.luma) continue;
        add(kind, r, g, b);
      }
    }
  }
  const enough = (kind: typeof loose, share: number) => kind.count >= MIN_TEETH_PX && kind.count >= share * inside;
  if (!enough(loose, LOOSE.share) && !enough(strict, STRICT.share)) return undefined;
  // The teeth's colour: the white ones where there are enough, else the dimmer ones.
  const { sum, count } = strict.count >= MIN_TEETH_PX ? strict : loose;
  const teeth = sum.map((v) => v / count) as Rgb;
  // Without colour, the lip's edge is where the luma crosses halfway from the lips' to the teeth's.
  if (grey) return { teeth, maxSaturation: 1, minLuma: (lipLuma + luma(...teeth)) / 2 };
  return {
    teeth,
    maxSaturation: (lipSaturation + saturation(...teeth)) / 2,
    minLuma: DARK * lipLuma,
  };
}

/** Adds a pixel's colour to a tally of tooth candidates. */
function add(kind: { sum: number[]; count: number }, r: number, g: number, b: number): void {
  kind.sum[0]! += r;
  kind.sum[1]! += g;
  kind.sum[2]! += b;
  kind.count++;
}

/** Whether (`x`, `y`) lies inside the closed polygon `ring`. */
export function insidePolygon(ring: ReadonlyArray<readonly [number, number]>, x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
