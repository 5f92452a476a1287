import type { FacePalette } from './face-palette.js';
import { blendPixel, boxOf, LocalFrame, unit } from './local-curve.js';

const UPPER = [60, 61, 62, 63, 64] as const;
const LOWER = [60, 67, 66, 65, 64] as const;
/** Where the gaps between the upper front teeth lie, in tooth widths from the middle. */
const TOOTH_GAPS = [0, 1, -1, 1.95, -1.95] as const;

/** What {@link paintMouthInterior} draws with. */
export interface MouthInteriorInput {
  /** The frame's mesh points (landmarks first), moved. */
  points: Float64Array;
  /** The photo's mouth width in frame pixels. */
  mouthWidth: number;
  palette: FacePalette;
  /** F/V: the upper teeth reach further down, onto the lower lip (0–1). */
  teeth: number;
  /** Opacity of the painted inside (0 keeps the photo's own, e.g. its smile's teeth, at rest). */
  alpha: number;
}

/**
 * Paints the inside of the open mouth between the moved inner lip contours: a dark cavity (darkest at the
 * back), the tongue low in it, the lower teeth above the lower lip and the upper teeth under the upper lip
 * (incisor gaps, shaded darker towards the corners and under the lip), in the photo's colours, with
 * anti-aliased edges.
 */
export function paintMouthInterior(pixels: Uint8Array, width: number, height: number, input: MouthInteriorInput): void {
  const { points, mouthWidth: W, palette, teeth, alpha } = input;
  if (alpha <= 0) return;
  const frame = new LocalFrame(points, 60, 64);
  const upper = frame.curve(points, UPPER);
  const lower = frame.curve(points, LOWER);
  const start = Math.min(upper.start, lower.start);
  const end = Math.max(upper.end, lower.end);
  const half = Math.max((end - start) / 2, 1e-3);
  const middle = (start + end) / 2;
  const centreGap = lower.at(middle) - upper.at(middle);
  if (centreGap < 0.3) return;
  const box = boxOf(points, [...UPPER, ...LOWER], 2, width, height);
  const toothHeight = 0.15 * W;
  const lowerTeeth = 0.065 * W * unit((centreGap - 0.2 * W) / (0.15 * W));
  const toothWidth = 0.1 * W;
  const grow = 0.6 + 0.02 * W;
  const tongueTop = lower.at(middle) - 0.4 * centreGap;
  const tongueCentre = lower.at(middle) + 0.08 * W;
  const tongueRx = 0.36 * W;
  const tongueRy = tongueCentre - tongueTop;
  const [cr, cg, cb] = palette.cavity;
  const [tr, tg, tb] = palette.teeth;
  const [gr, gg, gb] = palette.tongue;
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0; x <= box.x1; x++) {
      const a = frame.along(x + 0.5, y + 0.5);
      if (a < start - 0.5 || a > end + 0.5) continue;
      const b = frame.across(x + 0.5, y + 0.5);
      const top = upper.at(a);
      const bottom = lower.at(a);
      // Grown a little over the lips' inner edge (in a photo the contour often lies on the teeth's edge),
      // which falls into the lips' shadow.
      const cover = unit(b - top + 0.5 + grow) * unit(bottom - b + 0.5 + grow);
      if (cover <= 0) continue;
      const rim = 0.72 + 0.28 * unit((Math.min(b - top, bottom - b) + grow) / (2 * grow + 0.5));
      const n = (a - middle) / half;
      const n2 = Math.min(1, n * n);
      const gap = Math.max(bottom - top, 1e-3);
      // The cavity: darkest at the back (the middle), lighter towards the lips.
      const depth = Math.min(1, ((b - (top + bottom) / 2) / (gap / 2)) ** 2 + n2);
      const cavityShade = 0.55 + 0.6 * depth;
      let r = cr * cavityShade;
      let g = cg * cavityShade;
      let bl = cb * cavityShade;
      // The tongue, low in the mouth, its top in shadow.
      const tongue = 1 - ((a - middle) / tongueRx) ** 2 - ((b - tongueCentre) / tongueRy) ** 2;
      if (tongue > 0 && tongueRy > 0.5) {
        const mix = unit(tongue * tongueRy);
        const shade = 0.55 + 0.45 * unit((b - tongueTop) / (tongueRy * 0.8));
        r += (gr * shade - r) * mix;
        g += (gg * shade - g) * mix;
        bl += (gb * shade - bl) * mix;
      }
      // Teeth: upper ones hang from the upper lip, lower ones stand on the lower lip; both recede at the corners.
      // F/V: the upper teeth reach down onto the lower lip.
      const upperEdge = top + Math.max(toothHeight * (1 - 0.55 * n2), teeth * (bottom - top + 1));
      // The lower teeth show only in the middle, above the lower lip.
      const lowerSpan = 1 - n2 / 0.36;
      const lowerEdge = bottom - lowerTeeth * lowerSpan;
      let tooth = 0;
      let toothShade = 0;
      if (Math.abs(n) < 0.9) {
        const aside = a - middle;
        let gapLine = Infinity;
        for (const k of TOOTH_GAPS) gapLine = Math.min(gapLine, Math.abs(aside - k * toothWidth));
        const gaps = 0.88 + 0.12 * unit(gapLine / 0.8);
        const corner = 0.6 + 0.4 * (1 - n2);
        const upperMix = unit(upperEdge - b + 0.5);
        if (upperMix > 0) {
          tooth = upperMix;
          toothShade = corner * gaps * (0.84 + 0.16 * unit((b - top) / Math.max(0.35 * toothHeight, 1)));
        } else if (lowerTeeth > 0.3 && lowerSpan > 0) {
          tooth = unit(b - lowerEdge + 0.5);
          toothShade = 0.9 * corner * gaps;
        }
        tooth *= unit((0.9 - Math.abs(n)) * half);
      }
      if (tooth > 0) {
        r += (tr * toothShade - r) * tooth;
        g += (tg * toothShade - g) * tooth;
        bl += (tb * toothShade - bl) * tooth;
      }
      blendPixel(pixels, (y * width + x) * 4, Math.min(255, r * rim), Math.min(255, g * rim), Math.min(255, bl * rim), cover * alpha);
    }
  }
}
