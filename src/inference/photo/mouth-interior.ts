import type { FacePalette } from './face-palette.js';
import { INNER_LOWER, INNER_UPPER } from './face-mesh.js';
import { blendPixel, boxOf, LocalFrame, unit } from './local-curve.js';
import { hash, PaintedTeeth } from './painted-teeth.js';
import { samplePhotoMouth, type PhotoMouth } from './photo-mouth.js';

/** What {@link paintMouthInterior} draws with. */
export interface MouthInteriorInput {
  /** The frame's mesh points (landmarks first), moved. */
  points: Float64Array;
  /** The photo's mouth width in frame pixels. */
  mouthWidth: number;
  palette: FacePalette;
  /** F/V: the upper teeth reach further down, onto the lower lip (0–1). */
  teeth: number;
  /** Opacity of the inside (0 leaves the warped photo as it is). */
  alpha: number;
  /** The inner lips' points from corner 60 to corner 64 (default: the landmarks 60–64, and 60, 67–64). */
  upper?: readonly number[];
  lower?: readonly number[];
  /**
   * The photo's own mouth (see `readPhotoMouth`): the open mouth's upper part (the upper teeth, or the upper half of
   * closed lips' detected gap) hangs from the upper lip and its lower part stands on the lower lip, both the photo's
   * own pixels, and only the space the opening adds between them is painted: the dark of the mouth, and where the
   * photo hides its teeth, painted ones (see {@link PaintedTeeth}). Without it, the whole inside is painted.
   */
  photo?: PhotoMouth;
}

/**
 * Paints the inside of the open mouth between the moved inner lip contours: the teeth (the photo's own, or painted),
 * and between them a dark cavity (darkest at the back, fading to the lips' shade in the corners) with the tongue low
 * in it, in the photo's colours and grain, with anti-aliased edges.
 */
export function paintMouthInterior(pixels: Uint8Array, width: number, height: number, input: MouthInteriorInput): void {
  const { points, mouthWidth: W, palette, teeth, alpha } = input;
  if (alpha <= 0) return;
  const { photo } = input;
  const frame = new LocalFrame(points, 60, 64);
  const upperPoints = input.upper ?? INNER_UPPER;
  const lowerPoints = input.lower ?? INNER_LOWER;
  const upper = frame.curve(points, upperPoints);
  const lower = frame.curve(points, lowerPoints);
  const start = Math.min(upper.start, lower.start);
  const end = Math.max(upper.end, lower.end);
  const half = Math.max((end - start) / 2, 1e-3);
  const middle = (start + end) / 2;
  const centreGap = lower.at(middle) - upper.at(middle);
  if (centreGap < 0.3) return;
  const box = boxOf(points, [...upperPoints, ...lowerPoints], 2, width, height);
  // Painted teeth fill the space the opening adds to the photo's own gap.
  const added = centreGap - (photo ? Math.max(0, photo.lower.at(middle) - photo.upper.at(middle)) : 0);
  const painted = photo?.showsTeeth ? undefined : new PaintedTeeth({ mouthWidth: W, centreGap: added, teeth, colour: palette.teeth, grain: palette.grain });
  const tongueTop = lower.at(middle) - 0.4 * centreGap;
  const tongueCentre = lower.at(middle) + 0.08 * W;
  const tongueRx = 0.36 * W;
  const tongueRy = tongueCentre - tongueTop;
  // The cavity: the photo's own dark where its mouth is open, else the palette's (from the lips); the corners, where
  // the lips meet, take the lips' shade instead of a black point.
  const [cr, cg, cb] = photo?.dark ?? palette.cavity;
  const cavityLight = photo?.dark ? 0.4 : 0.6;
  const [lr, lg, lb] = palette.lip;
  const grain = 1.7 * palette.grain;
  const sample: [number, number, number] = [0, 0, 0];
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0; x <= box.x1; x++) {
      const a = frame.along(x + 0.5, y + 0.5);
      if (a < start - 0.5 || a > end + 0.5) continue;
      const b = frame.across(x + 0.5, y + 0.5);
      const top = upper.at(a);
      const bottom = lower.at(a);
      const cover = unit(b - top + 0.5) * unit(bottom - b + 0.5);
      if (cover <= 0) continue;
      const n = (a - middle) / half;
      const n2 = Math.min(1, n * n);
      const gap = Math.max(bottom - top, 1e-3);
      const fromTop = b - top;
      const fromBottom = bottom - b;
      // The cavity: darkest at the back (the middle), lighter towards the lips and in the corners.
      const depth = Math.min(1, ((b - (top + bottom) / 2) / (gap / 2)) ** 2 + n2);
      const cavityShade = 1 - cavityLight + cavityLight * depth;
      const corner = 0.6 * unit((Math.abs(n) - 0.7) / 0.3);
      const noise = grain * hash(Math.round(a * 2), Math.round(fromTop * 2));
      let r = cr * cavityShade + (lr * 0.45 - cr * cavityShade) * corner + noise;
      let g = cg * cavityShade + (lg * 0.45 - cg * cavityShade) * corner + noise;
      let bl = cb * cavityShade + (lb * 0.45 - cb * cavityShade) * corner + noise;
      // The tongue, low in the mouth, its top in shadow.
      const tongue = 1 - ((a - middle) / tongueRx) ** 2 - ((b - tongueCentre) / tongueRy) ** 2;
      if (tongue > 0 && tongueRy > 0.5) {
        // Soft-edged and in the mouth's shade: a dim shape behind the lower teeth, not a painted disc.
        const mix = 0.75 * unit((tongue * tongueRy) / 2) * (1 - corner);
        const shade = 0.35 + 0.35 * unit((b - tongueTop) / (tongueRy * 0.8));
        const [gr, gg, gb] = palette.tongue;
        r += (gr * shade - r) * mix;
        g += (gg * shade - g) * mix;
        bl += (gb * shade - bl) * mix;
      }
      if (photo) {
        // The photo's own inside: its lower part on the lower lip, its upper part (in front) under the upper lip;
        // F/V: the upper teeth reach down onto the lower lip. Between them, the space the opening adds.
        const restTop = photo.upper.at(a);
        const restBottom = photo.lower.at(a);
        const restGap = Math.max(0, restBottom - restTop);
        const split = photo.split * restGap;
        if (painted) {
          // No teeth in the photo: painted ones in the added space, hanging from the upper part, standing on the lower.
          const tooth = painted.paint(a - middle, fromTop - split, fromBottom - (restGap - split), gap - restGap, sample);
          r += (sample[0] - r) * tooth;
          g += (sample[1] - g) * tooth;
          bl += (sample[2] - bl) * tooth;
        }
        const lowerPart = unit(restGap - split - fromBottom + 0.5);
        if (lowerPart > 0) {
          samplePhotoMouth(photo, a, restBottom - fromBottom, sample);
          r += (sample[0] - r) * lowerPart;
          g += (sample[1] - g) * lowerPart;
          bl += (sample[2] - bl) * lowerPart;
        }
        const upperPart = unit((painted ? split : Math.max(split, teeth * (gap + 1))) - fromTop + 0.5);
        if (upperPart > 0) {
          samplePhotoMouth(photo, a, restTop + fromTop, sample);
          r += (sample[0] - r) * upperPart;
          g += (sample[1] - g) * upperPart;
          bl += (sample[2] - bl) * upperPart;
        }
      } else if (painted) {
        const tooth = painted.paint(a - middle, fromTop, fromBottom, gap, sample);
        r += (sample[0] - r) * tooth;
        g += (sample[1] - g) * tooth;
        bl += (sample[2] - bl) * tooth;
      }
      blendPixel(pixels, (y * width + x) * 4, clamp(r), clamp(g), clamp(bl), cover * alpha);
    }
  }
}

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);
