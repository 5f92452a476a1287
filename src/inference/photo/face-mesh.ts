import type { FacePoint } from '../../domain/avatar/face-landmarks.js';
import { delaunay, enforceEdges } from './delaunay.js';
import { faceAxes, fromFace, toFace, type FaceAxes, type Point } from './face-axes.js';
import { moveFace, type FaceMotion, type MovableMesh } from './face-motion.js';

/**
 * The triangle mesh the photo is warped with, built once per avatar: the 68 landmarks, points on the
 * forehead, a ring around the head that moves with it, an outer ring that stays still, and a point halfway
 * along each side of the inner lips (so that the mouth's inside follows the lips' curved edge). Everything
 * outside the outer ring is never touched; between the two rings the head's motion fades into the
 * still neck and background.
 */
export interface FaceMesh extends MovableMesh {
  /** Rest positions in frame pixels, `x, y` per point (the photo as covered). */
  rest: Float64Array;
  count: number;
  /** Vertex index triples, counter-clockwise. */
  triangles: Uint16Array;
  /** Per point: 1 when it moves with the head, 0 for the still outer ring. */
  head: Uint8Array;
  axes: FaceAxes;
  /** The head turns about this point (under the chin, in the neck). */
  pivot: Point;
  /** The outer ring's bounding box (frame pixels, clamped to the frame): nothing outside it changes. */
  bounds: { x0: number; y0: number; x1: number; y1: number };
  /** The inner lips from corner 60 to corner 64 with the points between: the upper contour and the lower one. */
  innerUpper: readonly number[];
  innerLower: readonly number[];
}

/** The inner lip landmarks in order round the mouth's inside; a point is added between each and the next. */
export const INNER_RING = [60, 61, 62, 63, 64, 65, 66, 67] as const;
/** The inner lip landmarks from corner 60 to corner 64: the upper contour and the lower one. */
export const INNER_UPPER = [60, 61, 62, 63, 64] as const;
export const INNER_LOWER = [60, 67, 66, 65, 64] as const;

const FOREHEAD_FROM = [17, 19, 21, 22, 24, 26] as const;
const RING_POINTS = 28;

/** Closed contours as index runs: the mesh keeps their edges, so each part warps with its own triangles (the inner lips' is added with the points between). */
const CONTOUR_RUNS: ReadonlyArray<readonly number[]> = [
  [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 48],
  [48, 60],
  [54, 64],
  [36, 37, 38, 39, 40, 41, 36],
  [42, 43, 44, 45, 46, 47, 42],
];
const edgesOf = (runs: ReadonlyArray<readonly number[]>) => runs.flatMap((run) => run.slice(1).map((to, k) => [run[k]!, to] as [number, number]));

/** The mouth shape the mesh's topology is computed for: open, so that the lips are triangulated apart. */
const TOPOLOGY_MOTION: FaceMotion = { open: 0.7, width: 0, round: 0, closed: 0, teeth: 0, blink: 0, rotation: 0, shiftX: 0, shiftY: 0 };

/**
 * The mesh of the face whose landmarks `points` are in frame pixels, for a `width`×`height` frame. `between` places
 * the points between the inner lip landmarks (one per side of {@link INNER_RING}, in its order: 60–61, 61–62, …,
 * 67–60); by default each lies halfway.
 */
export function buildFaceMesh(points: readonly FacePoint[], width: number, height: number, between?: readonly FacePoint[]): FaceMesh {
  const axes = faceAxes(points);
  const { iod } = axes;
  const face = points.map((p) => toFace(axes, p));
  const jaw = face.slice(0, 17);
  const halfWidth = Math.max(...jaw.map(([a]) => Math.abs(a)), 0.6 * iod);
  const browTop = Math.min(...face.slice(17, 27).map(([, b]) => b));
  const chin = Math.max(...jaw.map(([, b]) => b));
  const centre = face[28]![1];
  const xs: number[] = points.map((p) => p[0]);
  const ys: number[] = points.map((p) => p[1]);
  const head: number[] = points.map(() => 1);
  const add = (p: Point, moves: boolean) => {
    xs.push(p[0]);
    ys.push(p[1]);
    head.push(moves ? 1 : 0);
  };
  for (const index of FOREHEAD_FROM) {
    const [a, b] = face[index]!;
    add(fromFace(axes, a, b - 0.45 * iod), true);
  }
  // Two rings: an asymmetric ellipse around the head (hair above, room for the jaw below), and a wider one.
  const ring = (grow: number, moves: boolean) => {
    const across = halfWidth + (0.35 + grow) * iod;
    const up = centre - browTop + (0.95 + grow) * iod;
    const down = chin - centre + (0.6 + grow) * iod;
    for (let k = 0; k < RING_POINTS; k++) {
      const angle = (2 * Math.PI * k) / RING_POINTS;
      const s = Math.sin(angle);
      add(fromFace(axes, across * Math.cos(angle), centre + s * (s > 0 ? down : up)), moves);
    }
  };
  ring(0, true);
  ring(0.75, false);
  // The points between the inner lip landmarks, each moving as the mean of its two (see moveFace).
  const first = xs.length;
  const halfway: Array<readonly [number, number, number]> = [];
  INNER_RING.forEach((from, k) => {
    const to = INNER_RING[(k + 1) % INNER_RING.length]!;
    const p = between?.[k] ?? [(points[from]![0] + points[to]![0]) / 2, (points[from]![1] + points[to]![1]) / 2];
    halfway.push([first + k, from, to]);
    add([p[0], p[1]], true);
  });
  const ringWithBetween = INNER_RING.flatMap((i, k) => [i, first + k]);
  const innerUpper = ringWithBetween.slice(0, 9);
  const innerLower = [...ringWithBetween.slice(8), 60].reverse();
  // Facing points of the inner lips (upper, lower): the landmarks' pairs and the points between them.
  const innerPairs: Array<readonly [number, number]> = innerUpper.slice(1, -1).map((top, k) => [top, innerLower[k + 1]!] as const);
  const count = xs.length;
  const rest = new Float64Array(count * 2);
  for (let i = 0; i < count; i++) {
    rest[2 * i] = xs[i]!;
    rest[2 * i + 1] = ys[i]!;
  }
  const pivot = fromFace(axes, face[8]![0], chin + 0.35 * iod);
  const headFlags = Uint8Array.from(head);
  const partial: MovableMesh = { rest, count, head: headFlags, axes, pivot, between: halfway, innerPairs };
  // Triangulated with the mouth open (lips apart even when a photo's inner lip points coincide), plus a tiny
  // fixed jitter against co-circular points.
  const open = moveFace(partial, TOPOLOGY_MOTION, new Float64Array(count * 2));
  const tx = new Float64Array(count);
  const ty = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    tx[i] = open[2 * i]! + ((i * 7919) % 13) * 1e-4;
    ty[i] = open[2 * i + 1]! + ((i * 104729) % 17) * 1e-4;
  }
  const triangulation = delaunay(tx, ty);
  enforceEdges(triangulation, tx, ty, edgesOf([...CONTOUR_RUNS, [...ringWithBetween, 60]]));
  const triangles = Uint16Array.from(triangulation.flat());
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let i = 0; i < count; i++) {
    x0 = Math.min(x0, rest[2 * i]!);
    x1 = Math.max(x1, rest[2 * i]!);
    y0 = Math.min(y0, rest[2 * i + 1]!);
    y1 = Math.max(y1, rest[2 * i + 1]!);
  }
  const clampX = (x: number) => Math.max(0, Math.min(width, x));
  const clampY = (y: number) => Math.max(0, Math.min(height, y));
  return {
    ...partial,
    triangles,
    bounds: { x0: clampX(Math.floor(x0)), y0: clampY(Math.floor(y0)), x1: clampX(Math.ceil(x1)), y1: clampY(Math.ceil(y1)) },
    innerUpper,
    innerLower,
  };
}
