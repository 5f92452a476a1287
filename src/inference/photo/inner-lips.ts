import type { FacePoint } from '../../domain/avatar/face-landmarks.js';
import { INNER_LOWER, INNER_RING, INNER_UPPER } from './face-mesh.js';
import { LocalFrame } from './local-curve.js';
import { sampleRgb } from './sample-rgb.js';
import { luma, saturation, type ToothTest } from './tooth-test.js';

const OUTER_UPPER = [48, 49, 50, 51, 52, 53, 54] as const;
const OUTER_LOWER = [48, 59, 58, 57, 56, 55, 54] as const;
/**
 * A point moves towards the outer lip by at most this share of the lip's thickness (a broad smile's lower lip is thin
 * at the sides, the teeth reaching close to its outer edge)…
 */
const MAX_INTO_LIP = 0.85;
/** …and into the mouth by at most this share of the gap to the facing lip (not across an open mouth to the other teeth). */
const MAX_INTO_MOUTH = 0.25;
/** A corner (60, 64) moves out towards the lips' outer corner (48, 54) by at most this share of the way. */
const MAX_CORNER = 0.85;
/** Scan step, pixels. */
const STEP = 0.5;

/** The inner lips fitted to the photo: the 68 landmarks (61–63 and 65–67 moved) and the points between (see `buildFaceMesh`). */
export interface FittedLips {
  points: FacePoint[];
  between: FacePoint[];
}

/**
 * Puts the inner lips of a photo that shows its teeth on the lips' real edge. A detector's inner contour often lies
 * a few pixels off it (on the lip's shadowed edge, or inside the teeth), and its straight sides cut the curved edge:
 * the lips' triangles of the mesh then carry strips of teeth, which show as a grey band between lips pressed together
 * and as teeth sheared along the lips of an open mouth. The corners are moved out along the lips while the teeth go
 * on; then the six middle landmarks and a point halfway along each side are moved, across the mouth, to where the lip
 * ends and the teeth begin (the saturation crosses halfway from the
 * lips' to the teeth's, see {@link ToothTest}): out of the teeth towards the lip, or off the lip into the mouth,
 * within bounds; a point with no teeth next to it (the dark of an open mouth, a corner) stays.
 */
export function fitInnerLips(pixels: Uint8Array, width: number, height: number, points: readonly FacePoint[], test: ToothTest): FittedLips {
  const rgb: [number, number, number] = [0, 0, 0];
  /** Whether the photo shows a tooth at (`x`, `y`): the mean over three points `(dx, dy)` apart, along the edge looked for. */
  const toothNear = (x: number, y: number, dx: number, dy: number) => {
    let sat = 0;
    let light = 0;
    for (const k of [-1, 0, 1]) {
      const [r, g, b] = sampleRgb(pixels, width, height, x + k * dx, y + k * dy, rgb);
      sat += saturation(r, g, b) / 3;
      light += luma(r, g, b) / 3;
    }
    return sat <= test.maxSaturation && light >= test.minLuma;
  };
  const fitted = points.map((p) => [p[0], p[1]] as FacePoint);
  // The corners first: out along the line to the outer corner while the teeth go on.
  for (const [corner, outer] of [[60, 48], [64, 54]] as const) {
    const [x, y] = points[corner]!;
    const length = Math.hypot(points[outer]![0] - x, points[outer]![1] - y);
    if (length < 1 || !toothNear(x, y, 0, 1)) continue;
    const dx = (points[outer]![0] - x) / length;
    const dy = (points[outer]![1] - y) / length;
    let t = 0;
    while (t + STEP <= MAX_CORNER * length && toothNear(x + (t + STEP) * dx, y + (t + STEP) * dy, -dy, dx)) t += STEP;
    fitted[corner] = [x + t * dx, y + t * dy];
  }
  const flat = Float64Array.from(fitted.flatMap((p) => [p[0], p[1]]));
  const frame = new LocalFrame(flat, 60, 64);
  const upper = frame.curve(flat, INNER_UPPER);
  const lower = frame.curve(flat, INNER_LOWER);
  const outerUpper = frame.curve(flat, OUTER_UPPER);
  const outerLower = frame.curve(flat, OUTER_LOWER);
  const toothAt = (a: number, b: number) => toothNear(frame.ox + a * frame.ux - b * frame.uy, frame.oy + a * frame.uy + b * frame.ux, frame.ux, frame.uy);
  // A dark gap between two teeth, crossed on the way out, is at most this long.
  const gapTolerance = Math.max(1, 0.015 * Math.hypot(flat[108]! - flat[96]!, flat[109]! - flat[97]!));
  /** The lip's edge at `a`, scanning from the contour's `b` (`into` +1: the upper lip, into the mouth is down). */
  const fit = (a: number, into: 1 | -1): number => {
    const b = into > 0 ? upper.at(a) : lower.at(a);
    const lip = Math.abs(b - (into > 0 ? outerUpper.at(a) : outerLower.at(a)));
    const gap = Math.max(0, lower.at(a) - upper.at(a));
    const at = (t: number) => toothAt(a, b + into * t);
    // The teeth nearest the contour (on it, or a little into the mouth: two steps of teeth in a row)…
    let start: number | undefined;
    for (let t = 0; t <= MAX_INTO_MOUTH * gap && start === undefined; t += STEP) if (at(t) && at(t + STEP)) start = t;
    if (start === undefined) return b;
    // …then out towards the lip while they go on (over a dark gap between two teeth), to the lip's edge.
    let edge = start;
    let missed = 0;
    for (let t = start - STEP; t >= -MAX_INTO_LIP * lip && missed <= gapTolerance; t -= STEP) {
      if (at(t)) {
        edge = t;
        missed = 0;
      } else missed += STEP;
    }
    return b + into * edge;
  };
  const toImage = (a: number, b: number): FacePoint => [frame.ox + a * frame.ux - b * frame.uy, frame.oy + a * frame.uy + b * frame.ux];
  const alongOf = (i: number) => frame.along(flat[2 * i]!, flat[2 * i + 1]!);
  for (const i of [61, 62, 63, 65, 66, 67]) {
    const a = alongOf(i);
    fitted[i] = toImage(a, fit(a, i < 64 ? 1 : -1));
  }
  // Halfway along each side of the inner ring (60–61, …, 67–60): on the upper contour for 60–64, else the lower.
  const between = INNER_RING.map((from, k) => {
    const to = INNER_RING[(k + 1) % INNER_RING.length]!;
    const a = (alongOf(from) + alongOf(to)) / 2;
    return toImage(a, fit(a, k < 4 ? 1 : -1));
  });
  return { points: fitted, between };
}
