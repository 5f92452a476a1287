import type { FaceAxes, Point } from './face-axes.js';

/**
 * What one frame does to the face: the mouth (the lip-sync track's parameters, already relative to the
 * photo's own mouth: all zero and `closed` 0 leave it as photographed), the blink and the head's pose.
 */
export interface FaceMotion {
  /** Jaw opening, 0–1 (1: the inner lips part by 0.4 mouth widths more than in the photo). */
  open: number;
  /** Lip spread, 0–1. */
  width: number;
  /** Lip rounding, 0–1. */
  round: number;
  /** Lips pressed together, 0–1 (1 closes the photo's own gap). */
  closed: number;
  /** Upper teeth on the lower lip (F, V), 0–1. */
  teeth: number;
  /** Eyelid closure, 0–1. */
  blink: number;
  /** Head rotation about the mesh's pivot, radians (positive: clockwise on screen). */
  rotation: number;
  /** Head offset in frame pixels. */
  shiftX: number;
  shiftY: number;
}

/** What {@link moveFace} needs of a mesh. */
export interface MovableMesh {
  rest: Float64Array;
  count: number;
  head: Uint8Array;
  axes: FaceAxes;
  pivot: Point;
  /** Points between two others (`[point, from, to]`): each moves as the mean of the two, but closes the lips by its own gap. */
  between: ReadonlyArray<readonly [number, number, number]>;
  /** Facing points of the inner lips (upper, lower), landmarks and points between: `closed` brings each pair together. */
  innerPairs: ReadonlyArray<readonly [number, number]>;
}

/** The opening of the inner lips for `open` = 1, in mouth widths, beyond the photo's own. */
export const MAX_OPENING = 0.4;

/** Jaw line points that follow the chin, with their share of its drop. */
const JAW_SHARE: ReadonlyArray<readonly [number, number]> = [
  [3, 0.08], [4, 0.25], [5, 0.5], [6, 0.75], [7, 0.92], [8, 1], [9, 0.92], [10, 0.75], [11, 0.5], [12, 0.25], [13, 0.08],
];
/** Lower lip points with their share of the lower lip's drop. */
const LOWER_LIP_SHARE: ReadonlyArray<readonly [number, number]> = [
  [55, 0.55], [56, 0.9], [57, 1], [58, 0.9], [59, 0.55], [65, 0.85], [66, 1], [67, 0.85],
];
/** Upper lip points with their share of the upper lip's lift. */
const UPPER_LIP_SHARE: ReadonlyArray<readonly [number, number]> = [
  [49, 0.3], [50, 0.5], [51, 0.5], [52, 0.5], [53, 0.3], [61, 0.8], [62, 1], [63, 0.8],
];
/** Upper eyelid points and the lower lid point each closes onto (per eye). */
const LIDS: ReadonlyArray<readonly [number, number]> = [
  [37, 41], [38, 40], [43, 47], [44, 46],
];

/**
 * The mesh's points for `motion`, written into `out` (`x, y` per point) and returned. The mouth and
 * lids are moved in the face's own axes, then the head's points are turned and shifted as one.
 */
export function moveFace(mesh: MovableMesh, motion: FaceMotion, out: Float64Array): Float64Array {
  const { rest, count, head, axes, pivot, between, innerPairs } = mesh;
  out.set(rest.subarray(0, count * 2));
  const W = axes.mouthWidth;
  const [ux, uy] = axes.u;
  const [vx, vy] = axes.v;
  const push = (i: number, a: number, b: number) => {
    out[2 * i] = out[2 * i]! + a * ux + b * vx;
    out[2 * i + 1] = out[2 * i + 1]! + a * uy + b * vy;
  };
  const { open, width, round, closed, teeth } = motion;
  // Opening parts the inner lips by `opening` more than in the photo: mostly the jaw and lower lip drop.
  const opening = open * MAX_OPENING * W;
  const upper = -0.18 * opening;
  const lower = 0.82 * opening;
  const press = (closed * axes.lipGap) / 4;
  // F/V: the lower lip comes up against the upper teeth.
  const tuck = teeth * 0.45 * opening;
  for (const i of [65, 66, 67]) push(i, 0, -tuck);
  for (const [i, share] of JAW_SHARE) push(i, 0, (0.92 * lower - 0.6 * press) * share);
  for (const [i, share] of LOWER_LIP_SHARE) push(i, 0, lower * share - (i < 60 ? press : 0));
  for (const [i, share] of UPPER_LIP_SHARE) push(i, 0, upper * share + (i < 60 ? press : 0));
  // Corners drop a little with the jaw and rise a little with a spread.
  for (const i of [48, 54, 60, 64]) push(i, 0, 0.35 * lower - 0.03 * W * width);
  // Spread and rounding stretch the lips across, about the mouth's centre; rounding narrows the opening more.
  const cx = (rest[96]! + rest[108]!) / 2;
  const cy = (rest[97]! + rest[109]!) / 2;
  const stretch = 0.18 * width - 0.34 * round;
  for (let i = 48; i < 68; i++) {
    const a = (rest[2 * i]! - cx) * ux + (rest[2 * i + 1]! - cy) * uy;
    const inner = i >= 60 && i !== 60 && i !== 64 ? 0.2 * round : 0;
    push(i, a * (stretch - inner), 0);
  }
  // Rounded lips pout (fuller), pressed lips thin; F/V rolls the lower lip in under the teeth and shows them.
  const fuller = 0.05 * W * round - 0.03 * W * closed;
  for (const i of [49, 50, 51, 52, 53]) push(i, 0, -fuller * (i === 49 || i === 53 ? 0.5 : 1) - 0.03 * W * teeth);
  for (const i of [55, 56, 57, 58, 59]) push(i, 0, fuller * (i === 55 || i === 59 ? 0.5 : 1) - 0.05 * W * teeth);
  for (const i of [61, 62, 63]) push(i, 0, -0.03 * W * teeth);
  // The points between move with their two points.
  for (const [k, from, to] of between) {
    out[2 * k] = rest[2 * k]! + (out[2 * from]! - rest[2 * from]! + out[2 * to]! - rest[2 * to]!) / 2;
    out[2 * k + 1] = rest[2 * k + 1]! + (out[2 * from + 1]! - rest[2 * from + 1]! + out[2 * to + 1]! - rest[2 * to + 1]!) / 2;
  }
  // Closing brings each pair of inner lip points together at their midpoint (the photo's own gap, pair by
  // pair); the outer contours and the jaw follow part of the way (above).
  if (closed > 0) {
    for (const [top, bottom] of innerPairs) {
      const gap = Math.max(0, (rest[2 * bottom]! - rest[2 * top]!) * vx + (rest[2 * bottom + 1]! - rest[2 * top + 1]!) * vy);
      push(top, 0, (closed * gap) / 2);
      push(bottom, 0, (-closed * gap) / 2);
    }
  }
  // Blink: each upper lid point closes onto its lower lid point, which rises a little.
  if (motion.blink > 0) {
    const b = motion.blink;
    for (const [top, bottom] of LIDS) {
      const tx = rest[2 * top]!;
      const ty = rest[2 * top + 1]!;
      const bx = rest[2 * bottom]! + (tx - rest[2 * bottom]!) * 0.12 * b;
      const by = rest[2 * bottom + 1]! + (ty - rest[2 * bottom + 1]!) * 0.12 * b;
      out[2 * bottom] = bx;
      out[2 * bottom + 1] = by;
      out[2 * top] = tx + (bx - tx) * b;
      out[2 * top + 1] = ty + (by - ty) * b;
    }
  }
  // The head: turned about the pivot and shifted, together.
  const { rotation, shiftX, shiftY } = motion;
  if (rotation !== 0 || shiftX !== 0 || shiftY !== 0) {
    const cos = Math.cos(rotation);
    const sin = Math.sin(rotation);
    const [px, py] = pivot;
    for (let i = 0; i < count; i++) {
      if (head[i] === 0) continue;
      const x = out[2 * i]! - px;
      const y = out[2 * i + 1]! - py;
      out[2 * i] = px + x * cos - y * sin + shiftX;
      out[2 * i + 1] = py + x * sin + y * cos + shiftY;
    }
  }
  return out;
}
