import type { Rgb } from './face-palette.js';
import { LocalFrame, type Curve } from './local-curve.js';
import { sampleRgb } from './sample-rgb.js';
import { luma, type ToothTest } from './tooth-test.js';

/** The split between the upper and lower part is looked for between these shares of the gap (upper teeth show more). */
const SPLIT_FROM = 0.35;
const SPLIT_TO = 0.9;
/** A row counts as the split only if it is this much darker (luma) than the teeth above it: else the teeth are all upper. */
const SPLIT_CONTRAST = 0.8;
/** The split row is the mouth's own dark (an open mouth's) when its luma is below this share of the teeth's. */
const DARK_INSIDE = 0.5;
/** Rows of the profile down the gap. */
const ROWS = 20;

/**
 * The photo's own mouth, read once per avatar: the inside between its inner lips (its teeth, or the dark of an open
 * mouth), in the mouth's own coordinates (`a` along the line from inner corner 60 to 64, `b` across it, down), with
 * where its upper part (the upper teeth, hanging from the upper lip) gives way to its lower part (the lower teeth or
 * tongue, standing on the lower lip), as a share of each column's gap: the darkest row between them over the middle
 * of the mouth, the edge of the upper teeth or the dark of a mouth already open. When the mouth opens, each part moves with its lip, unchanged, and the dark of the
 * mouth fills the space between them (see `paintMouthInterior`).
 */
export interface PhotoMouth {
  /** Whether the photo shows teeth between its lips: only then does an open mouth take them from the photo. */
  showsTeeth: boolean;
  /** Tells its teeth from its lips, when it shows teeth. */
  test?: ToothTest;
  /** The covered photo (RGBA) and its size. */
  pixels: Uint8Array;
  width: number;
  height: number;
  /** The rest mouth's frame and inner lip contours in it. */
  frame: LocalFrame;
  upper: Curve;
  lower: Curve;
  /**
   * Where the upper part ends, as a share of each column's gap (1: the inside is all upper teeth; a photo without
   * teeth: 0.5, its lips meet in the middle of the detected gap, which holds lip).
   */
  split: number;
  /** The dark of the photo's open mouth at the split, when it shows one (the cavity is painted in it). */
  dark?: Rgb;
}

/**
 * Reads the mouth of the covered photo `pixels` (RGBA, `width`×`height`) whose rest mesh points are `points`, its
 * inner lips the points `contours.upper` and `contours.lower` (corner 60 to corner 64); `test` tells its teeth
 * (undefined: it shows none).
 */
export function readPhotoMouth(
  pixels: Uint8Array,
  width: number,
  height: number,
  points: Float64Array,
  contours: { upper: readonly number[]; lower: readonly number[] },
  test: ToothTest | undefined,
): PhotoMouth {
  const frame = new LocalFrame(points, 60, 64);
  const upper = frame.curve(points, contours.upper);
  const lower = frame.curve(points, contours.lower);
  // Lips without teeth between them meet halfway; teeth are all upper ones unless a darker row splits them.
  const mouth: PhotoMouth = { showsTeeth: test !== undefined, test, pixels, width, height, frame, upper, lower, split: test ? 1 : 0.5 };
  if (!test) return mouth;
  // The luma profile down the gap, in shares of each column's gap, over the middle half of the mouth.
  const start = Math.min(upper.start, lower.start);
  const end = Math.max(upper.end, lower.end);
  const quarter = (end - start) / 4;
  const sums = new Float64Array(ROWS * 4);
  const rgb: [number, number, number] = [0, 0, 0];
  let columns = 0;
  for (let a = start + quarter; a <= end - quarter; a += 0.5) {
    const top = upper.at(a);
    const gap = lower.at(a) - top;
    if (gap < 1) continue;
    columns++;
    for (let row = 0; row < ROWS; row++) {
      samplePhotoMouth(mouth, a, top + ((row + 0.5) / ROWS) * gap, rgb);
      sums[4 * row]! += luma(...rgb);
      sums[4 * row + 1]! += rgb[0];
      sums[4 * row + 2]! += rgb[1];
      sums[4 * row + 3]! += rgb[2];
    }
  }
  // The darkest row between SPLIT_FROM and SPLIT_TO, if it is clearly darker than the teeth above it.
  let darkest = -1;
  let brightest = 0;
  for (let row = 0; row < ROWS; row++) {
    const share = (row + 0.5) / ROWS;
    if (share < SPLIT_FROM) brightest = Math.max(brightest, sums[4 * row]!);
    else if (share <= SPLIT_TO && (darkest < 0 || sums[4 * row]! < sums[4 * darkest]!)) darkest = row;
  }
  if (columns > 0 && darkest >= 0 && sums[4 * darkest]! < SPLIT_CONTRAST * brightest) {
    mouth.split = (darkest + 0.5) / ROWS;
    const dark = [1, 2, 3].map((c) => sums[4 * darkest + c]! / columns) as Rgb;
    if (luma(...dark) < DARK_INSIDE * luma(...test.teeth)) mouth.dark = dark;
  }
  return mouth;
}

/** The photo's colour at (`a`, `b`) of the rest mouth's frame, sampled bilinearly, into `out`. */
export function samplePhotoMouth(mouth: PhotoMouth, a: number, b: number, out: [number, number, number]): void {
  const { frame } = mouth;
  sampleRgb(mouth.pixels, mouth.width, mouth.height, frame.ox + a * frame.ux - b * frame.uy, frame.oy + a * frame.uy + b * frame.ux, out);
}
