import { mouthShows, type FaceAxes, type Point } from './face-axes.js';
import { boxOf } from './local-curve.js';

/** An RGB colour, 0–255 per channel. */
export type Rgb = [number, number, number];

/** Colours sampled from the photo, so that what the renderer paints matches it. */
export interface FacePalette {
  /** Skin of each upper eyelid (image-left eye, then the other), from between the lid and the brow. */
  lids: [Rgb, Rgb];
  /** The lower lip. */
  lip: Rgb;
  /** Teeth: the photo's own when they show, else an off-white dimmed to the face's light. */
  teeth: Rgb;
  /** The mouth's dark inside, from the lip colour. */
  cavity: Rgb;
  tongue: Rgb;
}

const luma = (r: number, g: number, b: number) => 0.299 * r + 0.587 * g + 0.114 * b;

/** The per-channel median of the pixels within `radius` of `centre` (at least the nearest pixel). */
function medianAround(pixels: Uint8Array, width: number, height: number, centres: Point[], radius: number): Rgb {
  const channels: [number[], number[], number[]] = [[], [], []];
  const r = Math.max(1, radius);
  for (const [cx, cy] of centres) {
    for (let y = Math.floor(cy - r); y <= Math.ceil(cy + r); y++) {
      for (let x = Math.floor(cx - r); x <= Math.ceil(cx + r); x++) {
        if (x < 0 || y < 0 || x >= width || y >= height || (x - cx) ** 2 + (y - cy) ** 2 > r * r) continue;
        const o = (y * width + x) * 4;
        for (let c = 0; c < 3; c++) channels[c]!.push(pixels[o + c]!);
      }
    }
  }
  return channels.map((values) => {
    if (values.length === 0) return 128;
    values.sort((p, q) => p - q);
    return values[values.length >> 1]!;
  }) as Rgb;
}

/** Landmarks of the inner lips. */
const INNER_LIPS = [60, 61, 62, 63, 64, 65, 66, 67] as const;

/** The brightest quarter of the pixels inside the photo's inner lips (its visible teeth), or none. */
function visibleTeeth(pixels: Uint8Array, width: number, height: number, points: Float64Array, axes: FaceAxes): Rgb | undefined {
  if (!mouthShows(axes)) return undefined;
  const ring = INNER_LIPS.map((i) => [points[2 * i]!, points[2 * i + 1]!] as Point);
  const box = boxOf(points, INNER_LIPS, 0, width, height);
  const found: Array<[number, number, number, number]> = [];
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0; x <= box.x1; x++) {
      if (!insidePolygon(ring, x + 0.5, y + 0.5)) continue;
      const o = (y * width + x) * 4;
      found.push([luma(pixels[o]!, pixels[o + 1]!, pixels[o + 2]!), pixels[o]!, pixels[o + 1]!, pixels[o + 2]!]);
    }
  }
  if (found.length < 8) return undefined;
  found.sort((p, q) => q[0] - p[0]);
  const top = found.slice(0, Math.max(1, found.length >> 2));
  const mean = [1, 2, 3].map((c) => top.reduce((sum, p) => sum + p[c]!, 0) / top.length) as Rgb;
  // Only if they are light enough to be teeth (not a dark open mouth).
  return luma(...mean) > 110 ? mean : undefined;
}

function insidePolygon(ring: Point[], x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Samples the colours of the face whose rest mesh points (landmarks first) are `points`, from the covered photo. */
export function samplePalette(pixels: Uint8Array, width: number, height: number, points: Float64Array, axes: FaceAxes): FacePalette {
  const at = (i: number): Point => [points[2 * i]!, points[2 * i + 1]!];
  const mid = (i: number, j: number, t = 0.5): Point => [at(i)[0] * (1 - t) + at(j)[0] * t, at(i)[1] * (1 - t) + at(j)[1] * t];
  const { iod } = axes;
  const lid = (upper: [number, number], brow: number): Rgb => {
    const lidMid = mid(upper[0], upper[1]);
    const b = at(brow);
    // A third of the way from the lid up to the brow: skin, above the lashes and below the brow's hairs.
    return medianAround(pixels, width, height, [[lidMid[0] + (b[0] - lidMid[0]) * 0.4, lidMid[1] + (b[1] - lidMid[1]) * 0.4]], 0.05 * iod);
  };
  const lip = medianAround(pixels, width, height, [mid(57, 66, 0.45), mid(56, 65, 0.45), mid(58, 67, 0.45)], 0.04 * iod);
  const skin = medianAround(pixels, width, height, [mid(31, 2), mid(35, 14)], 0.1 * iod);
  const light = Math.min(1.05, Math.max(0.55, luma(...skin) / 170));
  const teeth = visibleTeeth(pixels, width, height, points, axes) ?? ([238 * light, 230 * light, 214 * light] as Rgb);
  return {
    lids: [lid([37, 38], 19), lid([43, 44], 24)],
    lip,
    teeth: teeth.map((c) => Math.min(255, c)) as Rgb,
    cavity: [lip[0] * 0.22 + 12, lip[1] * 0.12 + 4, lip[2] * 0.12 + 5],
    tongue: [Math.min(255, lip[0] * 0.92 + 20), lip[1] * 0.62, lip[2] * 0.66],
  };
}
