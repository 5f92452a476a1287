/**
 * The face in each frame of a clip, with the face model the photo avatars use (MediaPipe BlazeFace + Face Mesh in
 * `@vladmandic/human`, mapped to the 68 iBUG points). Tracking, as MediaPipe's own face-mesh pipeline does: each
 * frame's face is first found by the mesh model alone, in a square placed from the last frame's landmarks (the
 * detector is ~80 % of a frame's time with both models: 12 ms a frame instead of ~60 at 360×288); where the mesh is
 * not confident there, or the head is tilted past {@link MAX_FOLLOW_ROLL} (the detector's path turns such a face
 * upright), the detector and the mesh search a square around where the face was, cut from the frame at up to
 * {@link TRACK_SIZE} pixels; only when that fails too (the first frame, a cut, a fast move) is the whole frame
 * searched, scaled down. CPU-bound: runs in the video avatar's child process.
 */
import { MIN_FACE_SCORE } from '../face/detect-faces.js';
import { findFaceMeshes, MESH_INPUT_SIZE, meshOfCrop } from '../face/human-face-mesh.js';
import { meshToIbug68 } from '../face/mesh-to-ibug68.js';
import { yuvSquareToRgba } from './yuv-pixels.js';

/** One frame's face: the 68 points (`x, y` each, frame pixels) and the mesh model's confidence. */
export interface TrackedFace {
  points: Float32Array;
  score: number;
  /** Where the mesh model alone looks for this face in the next frame (see {@link FollowSquare}). */
  follow: FollowSquare;
}

/**
 * The square the mesh model is given for a face in the next frame (frame pixels): the detector's box (enlarged and
 * squared by Human) centred on the last mesh, as Human's own tracking places it. Its side is kept while the mesh
 * alone follows the face; the detector places it afresh when the face's size changes by more than
 * {@link MAX_FOLLOW_RESIZE}.
 */
export interface FollowSquare {
  centre: [number, number];
  side: number;
  /** The face's size (the 68 points' larger box side) when the side was set. */
  faceSize: number;
}

/** The tracking square is cut at most this large (pixels a side). */
export const TRACK_SIZE = 320;
/** The tracking square spans this many times the face's larger box side (brows to chin). */
const TRACK_CONTEXT = 2.2;
/** Without Human's box, the mesh model's square spans this many times the face's size (its 68 points' larger box side). */
const FOLLOW_CONTEXT = 1.4;
/** A face whose size changed by more than this fraction since its square was placed is found through the detector. */
const MAX_FOLLOW_RESIZE = 0.2;
/** A head tilted more than this (radians, the eye line) is found through the detector, which turns it upright. */
export const MAX_FOLLOW_ROLL = 0.2;
/** The whole frame is searched scaled down to at most this longer side. */
const SEARCH_SIDE = 640;

/** Finds the face in consecutive frames of one clip (see the module comment). */
export class FaceTracker {
  private last: TrackedFace | undefined;
  /** Frames the detector was run on (the mesh alone found the face in the others). */
  detections = 0;

  /** `options.follow: false` runs the detector on every frame (for comparisons). */
  constructor(
    readonly width: number,
    readonly height: number,
    private readonly options: { follow?: boolean } = {},
  ) {}

  /** The face in the next frame (yuv420p, the tracker's size), or none. */
  async next(frame: Uint8Array): Promise<TrackedFace | undefined> {
    const followed = this.last && this.options.follow !== false ? await this.follow(frame, this.last) : undefined;
    if (!followed) this.detections++;
    const near = followed ?? (this.last ? await this.around(frame, this.last) : undefined);
    const found = near ?? (await this.search(frame));
    this.last = found;
    return found;
  }

  /** Forgets the last face (the next frame is searched whole). */
  reset(): void {
    this.last = undefined;
  }

  /** The face by the mesh model alone, in a square placed from the last face; none where it is not confident. */
  private async follow(frame: Uint8Array, last: TrackedFace): Promise<TrackedFace | undefined> {
    const p = last.points;
    // iBUG points 36 and 45: the eyes' outer corners.
    if (Math.abs(Math.atan2(p[91]! - p[73]!, p[90]! - p[72]!)) > MAX_FOLLOW_ROLL) return undefined;
    const { centre, side, faceSize } = last.follow;
    const x = centre[0] - side / 2;
    const y = centre[1] - side / 2;
    const mesh = await meshOfCrop(yuvSquareToRgba(frame, this.width, this.height, x, y, side, MESH_INPUT_SIZE));
    if (mesh.faceScore < MIN_FACE_SCORE) return undefined;
    const unit = side / MESH_INPUT_SIZE;
    const points = ibugPoints(mesh.mesh, x, y, unit);
    // The person moved closer or away: the detector places the square afresh.
    if (Math.abs(sizeOf(points) / faceSize - 1) > MAX_FOLLOW_RESIZE) return undefined;
    const [mx, my] = meshCentre(mesh.mesh);
    return { points, score: mesh.faceScore, follow: { centre: [x + mx * unit, y + my * unit], side, faceSize } };
  }

  private async around(frame: Uint8Array, last: TrackedFace): Promise<TrackedFace | undefined> {
    const box = boundsOf(last.points);
    const side = Math.max(box.x1 - box.x0, box.y1 - box.y0) * TRACK_CONTEXT;
    const x = (box.x0 + box.x1) / 2 - side / 2;
    const y = (box.y0 + box.y1) / 2 - side / 2;
    const size = Math.max(64, Math.min(TRACK_SIZE, Math.round(side)));
    const faces = await this.look(frame, x, y, side, size);
    // The face nearest where it was (another person may come into the square).
    const [cx, cy] = [(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2];
    const best = faces.map((face) => ({ face, off: Math.hypot(centreX(face.points) - cx, centreY(face.points) - cy) })).sort((a, b) => a.off - b.off)[0];
    return best && best.off < (box.x1 - box.x0) * 0.5 ? best.face : undefined;
  }

  private async search(frame: Uint8Array): Promise<TrackedFace | undefined> {
    const side = Math.max(this.width, this.height);
    const size = Math.min(side, SEARCH_SIDE);
    // A square over the whole frame (the shorter side padded with black), scaled down.
    const x = (this.width - side) / 2;
    const y = (this.height - side) / 2;
    const faces = await this.look(frame, x, y, side, size);
    // The largest face.
    return faces.sort((a, b) => area(b.points) - area(a.points))[0];
  }

  /** The faces found in the square (`x`, `y`, `side`) of the frame, looked at as `size × size` pixels. */
  private async look(frame: Uint8Array, x: number, y: number, side: number, size: number): Promise<TrackedFace[]> {
    const pixels = yuvSquareToRgba(frame, this.width, this.height, x, y, side, size);
    const meshes = await findFaceMeshes(pixels, size, size);
    const unit = side / size;
    return meshes
      .filter((mesh) => mesh.faceScore >= MIN_FACE_SCORE)
      .map((mesh) => {
        const points = ibugPoints(mesh.mesh, x, y, unit);
        // Human's box for the next frame; without one (never with the detector), a square of the same proportions.
        const [bx, by, bw, bh] = mesh.box ?? [0, 0, 0, 0];
        const [mx, my] = mesh.box ? [bx + bw / 2, by + bh / 2] : meshCentre(mesh.mesh);
        const side = mesh.box ? Math.max(bw, bh) * unit : sizeOf(points) * FOLLOW_CONTEXT;
        return { points, score: mesh.faceScore, follow: { centre: [x + mx * unit, y + my * unit], side, faceSize: sizeOf(points) } };
      });
  }
}

/** The 68 iBUG points of a mesh found in a square at (`x`, `y`) of the frame whose pixels are `unit` frame pixels. */
function ibugPoints(mesh: [number, number][], x: number, y: number, unit: number): Float32Array {
  const points = new Float32Array(136);
  meshToIbug68(mesh).forEach(([px, py], i) => {
    points[2 * i] = x + px * unit;
    points[2 * i + 1] = y + py * unit;
  });
  return points;
}

/** The centre of a whole mesh's box (forehead included), in the mesh's pixels. */
function meshCentre(mesh: [number, number][]): [number, number] {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [px, py] of mesh) {
    x0 = Math.min(x0, px);
    x1 = Math.max(x1, px);
    y0 = Math.min(y0, py);
    y1 = Math.max(y1, py);
  }
  return [(x0 + x1) / 2, (y0 + y1) / 2];
}

/** A face's size: the larger side of its 68 points' box. */
function sizeOf(points: Float32Array): number {
  const box = boundsOf(points);
  return Math.max(box.x1 - box.x0, box.y1 - box.y0);
}

/** The bounding box of 68 points. */
export function boundsOf(points: Float32Array): { x0: number; y0: number; x1: number; y1: number } {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let i = 0; i < points.length; i += 2) {
    x0 = Math.min(x0, points[i]!);
    x1 = Math.max(x1, points[i]!);
    y0 = Math.min(y0, points[i + 1]!);
    y1 = Math.max(y1, points[i + 1]!);
  }
  return { x0, y0, x1, y1 };
}

const centreX = (p: Float32Array) => (boundsOf(p).x0 + boundsOf(p).x1) / 2;
const centreY = (p: Float32Array) => (boundsOf(p).y0 + boundsOf(p).y1) / 2;
const area = (p: Float32Array) => {
  const b = boundsOf(p);
  return (b.x1 - b.x0) * (b.y1 - b.y0);
};
