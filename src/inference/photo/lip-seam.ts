import type { Rgb } from './face-palette.js';
import { blendPixel, boxOf, LocalFrame, unit } from './local-curve.js';
import { luma, saturation, type ToothTest } from './tooth-test.js';

/** Teeth in the lips' shade are this much more saturated than the tooth test allows. */
const SHADED_TEETH = 1.2;

/** What {@link paintLipSeam} draws with. */
export interface LipSeamInput {
  /** The frame's mesh points, moved. */
  points: Float64Array;
  /** The inner lips' points from corner 60 to corner 64. */
  upper: readonly number[];
  lower: readonly number[];
  /** The photo's mouth width in frame pixels. */
  mouthWidth: number;
  /** How far the lips are closed (0–1). */
  closed: number;
  /** Tells the photo's teeth (see `toothTest`). */
  test: ToothTest;
  lip: Rgb;
}

/**
 * Where lips that show teeth in the photo are pressed together (P, B, M), the teeth that the lips' edge still carries
 * (a pixel or two where the fitted contour misses the real edge) would show as a pale line between them: near the
 * closed contour, pixels that look like teeth take the lips' colour, darkened as the line where lips meet is, and the
 * lips' own pixels darken a little towards that line.
 */
export function paintLipSeam(pixels: Uint8Array, width: number, height: number, input: LipSeamInput): void {
  const { points, mouthWidth: W, closed, test, lip } = input;
  if (closed <= 0) return;
  const frame = new LocalFrame(points, 60, 64);
  const upper = frame.curve(points, input.upper);
  const lower = frame.curve(points, input.lower);
  // The line where the lips meet darkens within `reach`; teeth are covered within `toothReach`.
  const reach = Math.max(1.5, 0.06 * W);
  const toothReach = Math.max(3, 0.12 * W);
  const box = boxOf(points, [...input.upper, ...input.lower], Math.ceil(toothReach) + 1, width, height);
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0; x <= box.x1; x++) {
      const a = frame.along(x + 0.5, y + 0.5);
      if (a < upper.start || a > upper.end) continue;
      const top = upper.at(a);
      const bottom = lower.at(a);
      const off = Math.abs(frame.across(x + 0.5, y + 0.5) - (top + bottom) / 2) - Math.max(0, bottom - top) / 2;
      if (off >= toothReach) continue;
      const near = 1 - unit(off / reach);
      const o = (y * width + x) * 4;
      // Teeth (and teeth in the lips' shade, a little more saturated) take the lips' colour; the lips' own pixels only
      // take the darker line where they meet.
      const tooth = saturation(pixels[o]!, pixels[o + 1]!, pixels[o + 2]!) <= SHADED_TEETH * test.maxSaturation && luma(pixels[o]!, pixels[o + 1]!, pixels[o + 2]!) >= test.minLuma;
      const weight = tooth ? 1 - unit(off / toothReach) : 0.5 * near * near;
      if (weight <= 0) continue;
      const shade = 0.55 + 0.4 * unit(off / reach);
      blendPixel(pixels, o, lip[0] * shade, lip[1] * shade, lip[2] * shade, closed * weight);
    }
  }
}
