import type { FaceAxes, Point } from './face-axes.js';
import { luma } from './tooth-test.js';

/** An RGB colour, 0–255 per channel. */
export type Rgb = [number, number, number];

/** Colours sampled from the photo, so that what the renderer paints matches it. */
export interface FacePalette {
  /** Skin of each upper eyelid (image-left eye, then the other), from between the lid and the brow. */
  lids: [Rgb, Rgb];
  /** The lower lip. */
  lip: Rgb;
  /** The cheeks' skin, beside the nose. */
  skin: Rgb;
  /** The photo's grain: the spread of the skin's luma about each pixel's neighbours' (0–255). */
  grain: number;
  /** Teeth: the photo's own when they show, else a natural tooth colour for the skin and light (see {@link naturalTeeth}). */
  teeth: Rgb;
  /** The mouth's dark inside, from the lip colour. */
  cavity: Rgb;
  tongue: Rgb;
}

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

/**
 * The photo's grain around `centres`: the median absolute difference of each pixel's luma from its 3×3
 * neighbourhood's mean, scaled to a standard deviation (×1.48).
 */
function grainAround(pixels: Uint8Array, width: number, height: number, centres: Point[], radius: number): number {
  const r = Math.max(2, radius);
  const at = (x: number, y: number) => {
    const o = (y * width + x) * 4;
    return luma(pixels[o]!, pixels[o + 1]!, pixels[o + 2]!);
  };
  const spreads: number[] = [];
  for (const [cx, cy] of centres) {
    for (let y = Math.floor(cy - r); y <= Math.ceil(cy + r); y++) {
      for (let x = Math.floor(cx - r); x <= Math.ceil(cx + r); x++) {
        if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1 || (x - cx) ** 2 + (y - cy) ** 2 > r * r) continue;
        let sum = 0;
        for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) sum += at(x + dx, y + dy);
        spreads.push(Math.abs(at(x, y) - sum / 9));
      }
    }
  }
  if (spreads.length === 0) return 0;
  spreads.sort((p, q) => p - q);
  return 1.48 * spreads[spreads.length >> 1]!;
}

/** Skin's usual red and blue against its green (the real portraits' cheeks: red 1.2–1.6, blue 0.8–0.9 of green). */
const SKIN_RED = 1.35;
const SKIN_BLUE = 0.85;
/** Teeth's own tint, against their green: a warm ivory, never bluish. */
const TOOTH_RED = 1.08;
const TOOTH_BLUE = 0.86;
/** Teeth seen in a mouth that opens are in its shade: this much darker than a smile's. */
const TOOTH_SHADE = 0.85;

/**
 * A natural tooth colour for a face whose cheeks are `skin`, for a photo that does not show its teeth: a warm ivory
 * tinted by most of the light's cast where it is warm (how far the skin's red and blue stray from skin's usual, so an
 * orange-lit face gets warmer teeth; never cooler than ivory, so never bluish or grey), about as bright as teeth are
 * against skin in the real portraits (1.15–1.7 times the skin's luma, the more the darker the skin: the skin's
 * luma lifted by a gamma of 0.6), in the shade of the mouth.
 */
export function naturalTeeth(skin: Rgb): Rgb {
  const [r, g, b] = skin.map((c) => Math.max(c, 1)) as Rgb;
  const cast = (value: number, usual: number, low: number, high: number) => Math.min(high, Math.max(low, (value / usual) ** 0.75));
  const red = TOOTH_RED * cast(r / g, SKIN_RED, 1, 1.2);
  const blue = TOOTH_BLUE * cast(b / g, SKIN_BLUE, 0.85, 1);
  const target = TOOTH_SHADE * 255 * (luma(...skin) / 255) ** 0.6;
  const green = target / luma(red, 1, blue);
  return [Math.min(255, red * green), Math.min(255, green), Math.min(255, blue * green)];
}

/**
 * Samples the colours of the face whose rest mesh points (landmarks first) are `points`, from the covered photo;
 * `teeth` are the photo's own teeth (see `toothTest`), if it shows them.
 */
export function samplePalette(pixels: Uint8Array, width: number, height: number, points: Float64Array, axes: FaceAxes, teeth?: Rgb): FacePalette {
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
  const cheeks = [mid(31, 2), mid(35, 14)];
  const skin = medianAround(pixels, width, height, cheeks, 0.1 * iod);
  return {
    lids: [lid([37, 38], 19), lid([43, 44], 24)],
    lip,
    skin,
    grain: grainAround(pixels, width, height, cheeks, 0.1 * iod),
    teeth: teeth ?? naturalTeeth(skin),
    cavity: [lip[0] * 0.22 + 12, lip[1] * 0.12 + 4, lip[2] * 0.12 + 5],
    tongue: [Math.min(255, lip[0] * 0.85 + 15), lip[1] * 0.6, lip[2] * 0.62],
  };
}
