import type { FacePoint } from '../../domain/avatar/face-landmarks.js';

/** A point in frame pixels. */
export type Point = [number, number];

/**
 * The face's own axes in frame pixels: `u` runs from the image-left eye to the other (across the face),
 * `v` down the face, both unit vectors; lengths are measured in `iod` (the distance between the eye
 * centres), so the renderer's proportions hold for any face size and a tilted head.
 */
export interface FaceAxes {
  /** Midpoint between the eye centres. */
  origin: Point;
  u: Point;
  v: Point;
  /** Inter-ocular distance in frame pixels. */
  iod: number;
  /** Outer mouth width (corner 48 to corner 54) in frame pixels. */
  mouthWidth: number;
  /** The photo's own gap between the inner lips (upper 61–63 to lower 67–65, along `v`), in frame pixels. */
  lipGap: number;
}

/** The mean of `points[from … to−1]`. */
export function centroid(points: readonly FacePoint[], from: number, to: number): Point {
  let x = 0;
  let y = 0;
  for (let i = from; i < to; i++) {
    x += points[i]![0];
    y += points[i]![1];
  }
  return [x / (to - from), y / (to - from)];
}

/** The axes of a face whose 68 landmarks `points` are in frame pixels. */
export function faceAxes(points: readonly FacePoint[]): FaceAxes {
  const right = centroid(points, 36, 42);
  const left = centroid(points, 42, 48);
  const dx = left[0] - right[0];
  const dy = left[1] - right[1];
  const iod = Math.max(Math.hypot(dx, dy), 1e-3);
  const u: Point = [dx / iod, dy / iod];
  const v: Point = [-u[1], u[0]];
  const along = (a: FacePoint, b: FacePoint) => (b[0] - a[0]) * v[0] + (b[1] - a[1]) * v[1];
  const lipGap = Math.max(0, (along(points[61]!, points[67]!) + along(points[62]!, points[66]!) + along(points[63]!, points[65]!)) / 3);
  return {
    origin: [(left[0] + right[0]) / 2, (left[1] + right[1]) / 2],
    u,
    v,
    iod,
    mouthWidth: Math.max(Math.hypot(points[54]![0] - points[48]![0], points[54]![1] - points[48]![1]), 1e-3),
    lipGap,
  };
}

/** `p` in the face's axes: (across, down) from the origin, in pixels. */
export function toFace(axes: FaceAxes, p: Point | FacePoint): Point {
  const x = p[0] - axes.origin[0];
  const y = p[1] - axes.origin[1];
  return [x * axes.u[0] + y * axes.u[1], x * axes.v[0] + y * axes.v[1]];
}

/** The frame point at (`a` across, `b` down) in the face's axes. */
export function fromFace(axes: FaceAxes, a: number, b: number): Point {
  return [axes.origin[0] + a * axes.u[0] + b * axes.v[0], axes.origin[1] + a * axes.u[1] + b * axes.v[1]];
}
