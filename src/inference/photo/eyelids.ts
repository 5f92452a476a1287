import type { Rgb } from './face-palette.js';
import { blendPixel, boxOf, LocalFrame, unit } from './local-curve.js';

/** Each eye: its corners, upper lid points and lower lid points (iBUG indices). */
const EYES = [
  { corners: [36, 39], upper: [36, 37, 38, 39], lower: [36, 41, 40, 39] },
  { corners: [42, 45], upper: [42, 43, 44, 45], lower: [42, 47, 46, 45] },
] as const;

/**
 * Shades the eyelids of a blink over the warped frame: where the lid now covers the eye it takes the skin
 * colour sampled above the eye (the stretched lid of the warp keeps some of its texture), and its edge is a
 * soft dark lash line. `open` holds the points with the eyes open (same head pose), `closing` the frame's.
 */
export function paintEyelids(
  pixels: Uint8Array,
  width: number,
  height: number,
  open: Float64Array,
  closing: Float64Array,
  lids: readonly [Rgb, Rgb],
  blink: number,
  iod: number,
): void {
  if (blink < 0.05) return;
  const lash = Math.max(0.8, 0.045 * iod);
  EYES.forEach((eye, side) => {
    const frame = new LocalFrame(closing, eye.corners[0], eye.corners[1]);
    const restLid = frame.curve(open, eye.upper);
    const lid = frame.curve(closing, eye.upper);
    const lower = frame.curve(closing, eye.lower);
    const [lr, lg, lb] = lids[side]!;
    const box = boxOf(open, [...eye.upper, ...eye.lower], 2, width, height);
    for (let y = box.y0; y <= box.y1; y++) {
      for (let x = box.x0; x <= box.x1; x++) {
        const a = frame.along(x + 0.5, y + 0.5);
        if (a < lid.start - 0.5 || a > lid.end + 0.5) continue;
        const b = frame.across(x + 0.5, y + 0.5);
        const edge = lid.at(a);
        // Newly covered by the lid: between the open lid's line and the closing one.
        const covered = unit(b - restLid.at(a) + 0.5) * unit(edge - b + 0.5);
        const o = (y * width + x) * 4;
        if (covered > 0) blendPixel(pixels, o, lr, lg, lb, covered * 0.65 * blink);
        // The lashes along the lid's edge, fading above it; not below the lower lid.
        const fromEdge = edge - b;
        if (fromEdge > -0.5 && fromEdge < lash && b < lower.at(a) + 0.5) {
          const darkness = 0.5 * blink * (1 - unit(fromEdge / lash)) * unit(fromEdge + 0.5);
          blendPixel(pixels, o, lr * 0.25, lg * 0.2, lb * 0.2, darkness);
        }
      }
    }
  });
}
