/**
 * The lower face of one frame redrawn from another frame (an "entry": a neutral frame or a mouth of the atlas), in
 * two steps that keep the face's outline the frame's own:
 *
 * 1. The jaw ({@link jawWarp}): the frame's own chin, jaw line and lower lip are moved up or down to where the
 *    entry's chin lies in the frame's pose, over a mesh whose outer ring stays: the outline, the neck and the
 *    background stretch or close up with the jaw, in the frame's own pixels and light.
 * 2. The mouth ({@link patchGeometry}): the entry's head is brought to the frame's pose by the affine map that best
 *    takes its steady points (eyes, nose, the jaw by the ears) onto the frame's; its lips keep their own shape (the
 *    entry's mouth) in that pose, the nostrils are pinned onto the frame's own. The entry shows inside a blend ring
 *    built in its face axes (under the nostrils, down the cheeks, between the lower lip and the chin: all inside the
 *    face), and the band out to a slightly wider ring, skin in both frames, gives the seamless blend its values.
 */
import type { FacePoint } from '../../domain/avatar/face-landmarks.js';
import { delaunay } from '../photo/delaunay.js';
import { faceAxes, fromFace, toFace, type FaceAxes } from '../photo/face-axes.js';
import { facePoints } from './face-geometry.js';
import type { PixelBox } from './yuv-pixels.js';

/** The landmarks the patch's mesh carries: the nose's base and the lips. */
const MESH_LANDMARKS = [31, 32, 33, 34, 35, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67];
/** Of those, the ones placed on the frame's own points (they do not move with the mouth). */
const PINNED = new Set([31, 32, 33, 34, 35]);
/** The points the entry's pose is fitted on, with their weights (the nose, nearest the mouth, counts most). */
const POSE_POINTS: ReadonlyArray<readonly [number, number]> = [
  [27, 1], [28, 1], [29, 2], [30, 3], [31, 2], [32, 2], [33, 3], [34, 2], [35, 2],
  [36, 1], [39, 1], [42, 1], [45, 1], [37, 0.5], [38, 0.5], [40, 0.5], [41, 0.5], [43, 0.5], [44, 0.5], [46, 0.5], [47, 0.5],
  [0, 1], [1, 1], [15, 1], [16, 1],
];

/** A 2×3 affine map `x' = a·x + b·y + c, y' = d·x + e·y + f`. */
export type Affine = [number, number, number, number, number, number];

export const applyAffine = (m: Affine, x: number, y: number): [number, number] => [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]];

/** The affine map that best takes `from`'s steady points onto `to`'s (weighted least squares). */
export function poseAffine(from: ArrayLike<number>, to: ArrayLike<number>): Affine {
  // Normal equations of [x y 1] · [a b c]ᵀ = x' (and the same for y').
  const m = new Float64Array(9);
  const rx = new Float64Array(3);
  const ry = new Float64Array(3);
  for (const [i, w] of POSE_POINTS) {
    const x = from[2 * i]!;
    const y = from[2 * i + 1]!;
    const row = [x, y, 1];
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) m[3 * r + c] += w * row[r]! * row[c]!;
      rx[r] += w * row[r]! * to[2 * i]!;
      ry[r] += w * row[r]! * to[2 * i + 1]!;
    }
  }
  const [a, b, c] = solve3(m, rx);
  const [d, e, f] = solve3(m, ry);
  return [a, b, c, d, e, f];
}

function solve3(m: Float64Array, r: Float64Array): [number, number, number] {
  const det = (k: Float64Array) => k[0]! * (k[4]! * k[8]! - k[5]! * k[7]!) - k[1]! * (k[3]! * k[8]! - k[5]! * k[6]!) + k[2]! * (k[3]! * k[7]! - k[4]! * k[6]!);
  const d = det(m);
  if (Math.abs(d) < 1e-12) return [1, 0, 0];
  const out: number[] = [];
  for (let col = 0; col < 3; col++) {
    const k = Float64Array.from(m);
    for (let row = 0; row < 3; row++) k[3 * row + col] = r[row]!;
    out.push(det(k) / d);
  }
  return out as [number, number, number];
}

/**
 * The blend ring of a face (68 points, any pixels), in those pixels: under the nostrils, across the cheeks and
 * between the lower lip and the chin, all inside the face's outline, so that the band around it is skin in both
 * frames (the outline and what lies beyond it stay the frame's own, see {@link jawWarp}).
 */
function blendRing(points: readonly FacePoint[], axes: FaceAxes): FacePoint[] {
  const f = (i: number) => toFace(axes, points[i]!);
  const iod = axes.iod;
  const nose = f(33);
  const mouth = [(f(48)[0] + f(54)[0]) / 2, (f(48)[1] + f(54)[1]) / 2] as const;
  const lerp = (p: readonly number[], q: readonly number[], t: number) => [p[0]! + (q[0]! - p[0]!) * t, p[1]! + (q[1]! - p[1]!) * t] as const;
  const tip = f(30);
  const ring: (readonly [number, number])[] = [
    // Beside the image-left nose wing, under the nostrils, beside the other wing: the folds from the nose down to
    // the mouth's corners (deep in a smile) lie inside, whole.
    [f(31)[0] - 0.12 * iod, f(31)[1] - 0.12 * iod],
    [f(31)[0], f(31)[1] + 0.05 * iod],
    [nose[0], nose[1] + 0.07 * iod],
    [f(35)[0], f(35)[1] + 0.05 * iod],
    [f(35)[0] + 0.12 * iod, f(35)[1] - 0.12 * iod],
    // Down the image-right cheek, inside the jaw line.
    lerp(tip, f(14), 0.62),
    lerp(mouth, f(13), 0.74),
    lerp(mouth, f(11), 0.66),
    // Between the lower lip and the chin, right to left.
    lerp(f(55), f(10), 0.5),
    lerp(f(57), f(8), 0.55),
    lerp(f(59), f(6), 0.5),
    // Up the image-left cheek.
    lerp(mouth, f(5), 0.66),
    lerp(mouth, f(3), 0.74),
    lerp(tip, f(2), 0.62),
  ];
  return ring.map(([a, b]) => fromFace(axes, a, b) as FacePoint);
}

/** `ring` grown outwards from its centre by `by` pixels (less at the top, under the nose). */
function grow(ring: readonly FacePoint[], by: number): FacePoint[] {
  const cx = ring.reduce((s, p) => s + p[0], 0) / ring.length;
  const cy = ring.reduce((s, p) => s + p[1], 0) / ring.length;
  return ring.map(([x, y], k) => {
    const dx = x - cx;
    const dy = y - cy;
    const length = Math.hypot(dx, dy) || 1;
    const amount = k < 5 ? by * 0.6 : by;
    return [x + (dx / length) * amount, y + (dy / length) * amount] as FacePoint;
  });
}

/** Everything a frame's patch is drawn with. */
export interface PatchGeometry {
  /** Mesh points in the entry's pixels. */
  rest: Float64Array;
  /** The same points in the frame's pixels. */
  moved: Float64Array;
  triangles: Uint16Array;
  /** The blend ring and the outer ring in the frame's pixels (`x, y` each). */
  ring: Float64Array;
  outer: Float64Array;
  /** How far the entry's chin lies below the frame's, along the face's vertical, in frame pixels. */
  chinDrop: number;
  /** The frame's face axes. */
  axes: FaceAxes;
  /** The entry's pose brought to the frame's ({@link poseAffine}). */
  affine: Affine;
}

/** The triangles of an entry's mesh: its topology does not change from frame to frame. */
const topologies = new WeakMap<object, Uint16Array>();

/**
 * Where entry `entry`'s mouth goes in a frame whose face is `frame` (68 points each, in their own pixels). `key`
 * identifies the entry (its mesh's triangles are computed once). `lips` (68 points in the entry's pixels, default
 * `entry`) moves the entry's lips (and chin) on the way: the warp carries the entry's pixels from `entry` to where
 * `lips` puts them in the frame's pose, in one resampling.
 */
export function patchGeometry(key: object, entry: ArrayLike<number>, frame: ArrayLike<number>, lips: ArrayLike<number> = entry): PatchGeometry {
  const affine = poseAffine(entry, frame);
  const axes = faceAxes(facePoints(Float64Array.from(frame)));
  const { rest, ringCount } = restOf(entry);
  const count = rest.length / 2;
  const moved = new Float64Array(count * 2);
  for (let k = 0; k < count; k++) {
    const i = MESH_LANDMARKS[k];
    const [x, y] =
      i === undefined ? applyAffine(affine, rest[2 * k]!, rest[2 * k + 1]!)
      : PINNED.has(i) ? [frame[2 * i]!, frame[2 * i + 1]!]
      : applyAffine(affine, lips[2 * i]!, lips[2 * i + 1]!);
    moved[2 * k] = x;
    moved[2 * k + 1] = y;
  }
  let triangles = topologies.get(key);
  if (!triangles) {
    triangles = triangulate(meshRest(opened(entry)).rest, count);
    topologies.set(key, triangles);
  }
  const [chinX, chinY] = applyAffine(affine, lips[16]!, lips[17]!);
  const chinDrop = (chinX - frame[16]!) * axes.v[0] + (chinY - frame[17]!) * axes.v[1];
  const mesh = MESH_LANDMARKS.length;
  return {
    rest,
    moved,
    triangles,
    ring: moved.slice(2 * mesh, 2 * (mesh + ringCount)),
    outer: moved.slice(2 * (mesh + ringCount)),
    chinDrop,
    axes,
    affine,
  };
}

/**
 * {@link meshRest} of each entry's points array seen: an atlas or neutral entry's points are one array, the same in every
 * frame it is drawn in; a mouth moved for one frame brings a new array, computed afresh (and soon dropped).
 */
const rests = new WeakMap<object, { rest: Float64Array; ringCount: number }>();

/** {@link meshRest} of `entry`, computed once per points array (when it is an object that can be a weak key). */
function restOf(entry: ArrayLike<number>): { rest: Float64Array; ringCount: number } {
  const known = rests.get(entry);
  if (known) return known;
  const made = meshRest(entry);
  rests.set(entry, made);
  return made;
}

/** The patch mesh's points in the entry's pixels (landmarks, blend ring, outer ring), and how many the blend ring has. */
function meshRest(entry: ArrayLike<number>): { rest: Float64Array; ringCount: number } {
  const face = facePoints(Float64Array.from(entry));
  const axes = faceAxes(face);
  const ring = blendRing(face, axes);
  const outer = grow(ring, 0.12 * axes.iod);
  const rest = new Float64Array((MESH_LANDMARKS.length + ring.length + outer.length) * 2);
  MESH_LANDMARKS.forEach((i, k) => {
    rest[2 * k] = entry[2 * i]!;
    rest[2 * k + 1] = entry[2 * i + 1]!;
  });
  [...ring, ...outer].forEach(([x, y], j) => {
    const k = MESH_LANDMARKS.length + j;
    rest[2 * k] = x;
    rest[2 * k + 1] = y;
  });
  return { rest, ringCount: ring.length };
}

/**
 * `entry`'s points with the jaw dropped (the lower lip and chin lowered by a fifth of the mouth's width): the patch
 * mesh is triangulated so, with the lips apart however the entry holds them, and the same triangles serve the entry
 * opened or closed by the renderer's small moves.
 */
function opened(entry: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(entry);
  const axes = faceAxes(facePoints(out));
  const drop = 0.2 * axes.mouthWidth;
  for (const [i, share] of JAW_SHARE) {
    if (i === 48 || i === 54 || i === 60 || i === 64) continue;
    out[2 * i] += axes.v[0] * drop * share;
    out[2 * i + 1] += axes.v[1] * drop * share;
  }
  return out;
}

/** Delaunay triangles of the first `count` points of `points` (`x, y` each), with a fixed jitter against co-circular points. */
function triangulate(points: Float64Array, count: number): Uint16Array {
  const xs = new Float64Array(count);
  const ys = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    xs[k] = points[2 * k]! + ((k * 7919) % 13) * 1e-4;
    ys[k] = points[2 * k + 1]! + ((k * 104729) % 17) * 1e-4;
  }
  return Uint16Array.from(delaunay(xs, ys).flat());
}

/** Jaw line points and lower lip points, with their share of the chin's move. */
const JAW_SHARE: ReadonlyArray<readonly [number, number]> = [
  [3, 0.03], [4, 0.15], [5, 0.4], [6, 0.7], [7, 0.9], [8, 1], [9, 0.9], [10, 0.7], [11, 0.4], [12, 0.15], [13, 0.03],
  [55, 0.55], [56, 0.85], [57, 0.95], [58, 0.85], [59, 0.55], [65, 0.85], [66, 0.95], [67, 0.85], [48, 0.3], [54, 0.3], [60, 0.3], [64, 0.3],
];
/** The jaw warp's other points: they stay (the nose, the upper lip, the jaw by the ears). */
const JAW_STILL = [2, 14, 31, 32, 33, 34, 35, 49, 50, 51, 52, 53, 61, 62, 63];

/** The jaw warp of {@link jawWarp}: mesh points at rest and moved (frame pixels), and triangles. */
export interface JawWarp {
  rest: Float64Array;
  moved: Float64Array;
  triangles: Uint16Array;
}

/**
 * Moves the frame's own chin by `drop` pixels along the face's vertical (down when positive), the jaw line and the
 * lower lip with it by their shares, over a mesh whose outer ring (around the jaw, below the chin) stays: the
 * frame's outline, neck and background stretch or close up with the jaw, in their own pixels and light. `frame` is
 * the frame's 68 points; `previous` (kept by the caller from frame to frame, updated here) holds the mesh's last
 * triangulations, reused while valid.
 */
export function jawWarp(frame: ArrayLike<number>, axes: FaceAxes, drop: number, previous: Uint16Array[] = []): JawWarp {
  const [vx, vy] = axes.v;
  const points: number[] = [];
  const moved: number[] = [];
  for (const [i, share] of JAW_SHARE) {
    points.push(frame[2 * i]!, frame[2 * i + 1]!);
    moved.push(frame[2 * i]! + vx * drop * share, frame[2 * i + 1]! + vy * drop * share);
  }
  for (const i of JAW_STILL) {
    points.push(frame[2 * i]!, frame[2 * i + 1]!);
    moved.push(frame[2 * i]!, frame[2 * i + 1]!);
  }
  // A still ring: out from the face's lower middle past the jaw line, and well below the chin.
  const cx = (frame[2 * 33]! + frame[2 * 8]!) / 2;
  const cy = (frame[2 * 33 + 1]! + frame[2 * 8 + 1]!) / 2;
  const reach = 0.3 * axes.iod + 1.5 * Math.abs(drop);
  for (let i = 2; i <= 14; i++) {
    const x = frame[2 * i]!;
    const y = frame[2 * i + 1]!;
    const length = Math.hypot(x - cx, y - cy) || 1;
    const out = [x + ((x - cx) / length) * reach, y + ((y - cy) / length) * reach];
    points.push(out[0]!, out[1]!);
    moved.push(out[0]!, out[1]!);
  }
  const rest = Float64Array.from(points);
  const movedPoints = Float64Array.from(moved);
  // The mesh's points are the same landmarks in every frame: the triangles of a frame before serve while none of them
  // turns over or collapses, here or moved (a new triangulation costs more than the warp of a small face). `previous`
  // holds the last few, most recent first (a jaw that opens and one that closes take different ones); a new one is
  // put first, the oldest dropped.
  const kept = previous.findIndex((triangles) => keepsOrientation(triangles, rest, movedPoints));
  const triangles = kept >= 0 ? previous[kept]! : triangulate(rest, rest.length / 2);
  if (kept !== 0) {
    if (kept > 0) previous.splice(kept, 1);
    previous.unshift(triangles);
    previous.length = Math.min(previous.length, KEPT_TOPOLOGIES);
  }
  return { rest, moved: movedPoints, triangles };
}

/** How many jaw mesh topologies {@link jawWarp} keeps for the frames after. */
const KEPT_TOPOLOGIES = 4;
/** The flattest triangle kept (twice its area over its longest side squared; an equilateral one is about 0.87). */
const MIN_SHAPE = 0.02;

/**
 * Whether every triangle of `triangles` (counter-clockwise in y-down pixels, as {@link triangulate} makes them) is
 * still counter-clockwise and not flat at `rest` and at `moved`.
 */
function keepsOrientation(triangles: Uint16Array, rest: Float64Array, moved: Float64Array): boolean {
  for (const points of [rest, moved]) {
    for (let t = 0; t < triangles.length; t += 3) {
      const a = triangles[t]!;
      const b = triangles[t + 1]!;
      const c = triangles[t + 2]!;
      const abx = points[2 * b]! - points[2 * a]!;
      const aby = points[2 * b + 1]! - points[2 * a + 1]!;
      const acx = points[2 * c]! - points[2 * a]!;
      const acy = points[2 * c + 1]! - points[2 * a + 1]!;
      const bcx = acx - abx;
      const bcy = acy - aby;
      const cross = abx * acy - aby * acx;
      const longest = Math.max(abx * abx + aby * aby, acx * acx + acy * acy, bcx * bcx + bcy * bcy);
      // `ab × ac` is positive for the triangles `triangulate` makes; written so that a NaN point fails too.
      if (!(cross > MIN_SHAPE * longest)) return false;
    }
  }
  return true;
}

/** The bounding box of some `x, y` arrays, grown by `margin`, even-aligned and clamped to a `width × height` frame. */
export function evenBox(arrays: readonly Float64Array[], margin: number, width: number, height: number): PixelBox {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const points of arrays) {
    for (let k = 0; k < points.length; k += 2) {
      x0 = Math.min(x0, points[k]!);
      x1 = Math.max(x1, points[k]!);
      y0 = Math.min(y0, points[k + 1]!);
      y1 = Math.max(y1, points[k + 1]!);
    }
  }
  const even = (v: number, hi: number) => Math.max(0, Math.min(hi, 2 * Math.round(v / 2)));
  return { x0: even(x0 - margin - 1, width), y0: even(y0 - margin - 1, height), x1: even(x1 + margin + 1, width), y1: even(y1 + margin + 1, height) };
}

/**
 * Rasterises polygon `ring` (frame pixels, `x, y` each) over `box` into `out` (one value a box pixel, row by row): 0
 * outside, inside rising linearly from 0 at the edge to 1 at `feather` pixels in (pixel centres), so 1 deep inside.
 * With `feather` 0, 1 everywhere inside.
 */
export function rasterRing(ring: Float64Array, box: PixelBox, feather: number, out: Float32Array): void {
  const n = ring.length / 2;
  const w = box.x1 - box.x0;
  const crossings: number[] = [];
  // Inside: even-odd spans per row.
  for (let y = box.y0; y < box.y1; y++) {
    const py = y + 0.5;
    crossings.length = 0;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const yi = ring[2 * i + 1]!;
      const yj = ring[2 * j + 1]!;
      if (yi > py !== yj > py) crossings.push(ring[2 * i]! + ((ring[2 * j]! - ring[2 * i]!) * (py - yi)) / (yj - yi));
    }
    crossings.sort((a, b) => a - b);
    const row = (y - box.y0) * w;
    out.fill(0, row, row + w);
    for (let k = 0; k + 1 < crossings.length; k += 2) {
      const from = Math.max(box.x0, Math.ceil(crossings[k]! - 0.5));
      const to = Math.min(box.x1 - 1, Math.floor(crossings[k + 1]! - 0.5));
      for (let x = from; x <= to; x++) out[row + x - box.x0] = 1;
    }
  }
  if (feather <= 0) return;
  // The soft edge: inside pixels within `feather` of an edge take their distance to it.
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const xi = ring[2 * i]!;
    const yi = ring[2 * i + 1]!;
    const ex = ring[2 * j]! - xi;
    const ey = ring[2 * j + 1]! - yi;
    const length2 = ex * ex + ey * ey || 1;
    const x0 = Math.max(box.x0, Math.floor(Math.min(xi, xi + ex) - feather));
    const x1 = Math.min(box.x1 - 1, Math.ceil(Math.max(xi, xi + ex) + feather));
    const y0 = Math.max(box.y0, Math.floor(Math.min(yi, yi + ey) - feather));
    const y1 = Math.min(box.y1 - 1, Math.ceil(Math.max(yi, yi + ey) + feather));
    for (let y = y0; y <= y1; y++) {
      const py = y + 0.5;
      const row = (y - box.y0) * w - box.x0;
      for (let x = x0; x <= x1; x++) {
        const v = out[row + x]!;
        if (v === 0) continue;
        const px = x + 0.5;
        const t = Math.max(0, Math.min(1, ((px - xi) * ex + (py - yi) * ey) / length2));
        const d = Math.sqrt((px - xi - t * ex) ** 2 + (py - yi - t * ey) ** 2) / feather;
        if (d < v) out[row + x] = d;
      }
    }
  }
}

/** The landmarks whose place the patch changes: the jaw line from {@link jawWarp}, the lips from the entry. */
const LIPS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67];

/**
 * The 68 points of the face as drawn on a frame whose face is `frame` with an entry whose lips are `lips` (68 points,
 * the entry's pixels): the frame's own, but the jaw line moved as {@link jawWarp} moves it and the lips where the
 * entry's lie in the frame's pose.
 */
export function drawnPoints(lips: ArrayLike<number>, frame: ArrayLike<number>, geometry: Pick<PatchGeometry, 'axes' | 'chinDrop' | 'affine'>): Float32Array {
  const out = Float32Array.from(frame);
  const [vx, vy] = geometry.axes.v;
  for (const [i, share] of JAW_SHARE) {
    if (i >= 48) continue;
    out[2 * i] = frame[2 * i]! + vx * geometry.chinDrop * share;
    out[2 * i + 1] = frame[2 * i + 1]! + vy * geometry.chinDrop * share;
  }
  for (const i of LIPS) {
    const [x, y] = applyAffine(geometry.affine, lips[2 * i]!, lips[2 * i + 1]!);
    out[2 * i] = x;
    out[2 * i + 1] = y;
  }
  return out;
}
