/**
 * The face in each frame of a clip, with the face model the photo avatars use (MediaPipe BlazeFace + Face Mesh in
 * `@vladmandic/human`, mapped to the 68 iBUG points). Tracking: each frame is searched first in a square around
 * where the face was in the frame before, cut from the frame at up to {@link TRACK_SIZE} pixels (the mesh model
 * sees a 192-pixel crop of the face, so it loses nothing, and the face is found in a small image fast); only when
 * that fails (the first frame, a cut, a fast move) is the whole frame searched, scaled down. CPU-bound: runs in
 * the video avatar's child process.
 */
import { MIN_FACE_SCORE } from '../face/detect-faces.js';
import { findFaceMeshes } from '../face/human-face-mesh.js';
import { meshToIbug68 } from '../face/mesh-to-ibug68.js';
import { yuvSquareToRgba } from './yuv-pixels.js';

/** One frame's face: the 68 points (`x, y` each, frame pixels) and the mesh model's confidence. */
export interface TrackedFace {
  points: Float32Array;
  score: number;
}

/** The tracking square is cut at most this large (pixels a side). */
export const TRACK_SIZE = 320;
/** The tracking square spans this many times the face's larger box side (brows to chin). */
const TRACK_CONTEXT = 2.2;
/** The whole frame is searched scaled down to at most this longer side. */
const SEARCH_SIDE = 640;

/** Finds the face in consecutive frames of one clip (see the module comment). */
export class FaceTracker {
  private last: TrackedFace | undefined;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  /** The face in the next frame (yuv420p, the tracker's size), or none. */
  async next(frame: Uint8Array): Promise<TrackedFace | undefined> {
    const near = this.last ? await this.around(frame, this.last) : undefined;
    const found = near ?? (await this.search(frame));
    this.last = found;
    return found;
  }

  /** Forgets the last face (the next frame is searched whole). */
  reset(): void {
    this.last = undefined;
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
        const ibug = meshToIbug68(mesh.mesh);
        const points = new Float32Array(136);
        ibug.forEach(([px, py], i) => {
          points[2 * i] = x + px * unit;
          points[2 * i + 1] = y + py * unit;
        });
        return { points, score: mesh.faceScore };
      });
  }
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
