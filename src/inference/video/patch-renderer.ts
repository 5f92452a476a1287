/**
 * Draws an entry's lower face into a yuv420p frame (see lower-face.ts): the frame's pixels around the lower face are
 * converted to RGBA, the jaw is moved to the entry's, the entry's mouth is warped over them and blended in
 * seamlessly (seamless-blend.ts) inside the blend ring with a soft edge, and only the pixels that changed are written
 * back. Scratch buffers are kept between frames.
 */
import { warpMesh } from '../photo/mesh-warp.js';
import { drawnPoints, evenBox, jawWarp, patchGeometry, rasterRing, type PatchGeometry } from './lower-face.js';
import { blendSeamless } from './seamless-blend.js';
import { writeRgbaBox, yuvBoxToRgba, type PixelBox } from './yuv-pixels.js';

/** A frame's lower face to draw from: RGBA pixels and that frame's 68 points in them. */
export interface EntryImage {
  pixels: Uint8Array;
  width: number;
  height: number;
  /** 68 points, `x, y` each, in the entry's pixels. */
  points: Float64Array;
}

/** How {@link PatchRenderer.draw} draws an entry. */
export interface PatchOptions {
  /** Names the entry for its mesh's triangles (default: the entry itself). */
  key?: object;
  /** The entry's lips moved (68 points in its pixels). */
  lips?: ArrayLike<number>;
}

/** The soft edge inside the blend ring, in eye distances. */
const FEATHER = 0.1;
/** Below this difference of the chins (pixels) the frame's jaw is left where it is. */
const JAW_STILL_PX = 0.3;
/** The membrane's grid cell, in eye distances (at least 2 pixels). */
const CELL = 0.06;

/** Draws entries' lower faces into frames (one instance per video: it keeps its scratch buffers). */
export class PatchRenderer {
  private base = new Uint8Array(0);
  private before = new Uint8Array(0);
  /** `base` and `before` a pixel (4 bytes) at a time. */
  private baseWords = new Uint32Array(0);
  private beforeWords = new Uint32Array(0);
  private patch = new Uint8Array(0);
  private covered = new Uint8Array(0);
  private changed = new Uint8Array(0);
  private alpha = new Float32Array(0);
  private distance = new Float32Array(0);
  /** The jaw mesh's triangles of the last frame whose jaw moved (kept while they stay valid: see `jawWarp`). */
  private jawTriangles: Uint16Array | undefined;

  /**
   * Draws `entry`'s lower face into `frame` (yuv420p, `width × height`) whose face's 68 points are `framePoints`;
   * returns the rectangle it may have changed and the face's points as drawn (see `drawnPoints`). `options.key` names
   * the entry for the mesh's triangles (default `entry`); `options.lips` moves the entry's lips on the way (68 points
   * in the entry's pixels, see `patchGeometry`).
   */
  draw(frame: Uint8Array, width: number, height: number, entry: EntryImage, framePoints: ArrayLike<number>, options: PatchOptions = {}): { box: PixelBox; points: Float32Array } {
    const lips = options.lips ?? entry.points;
    const geometry = patchGeometry(options.key ?? entry, entry.points, framePoints, lips);
    const points = drawnPoints(lips, framePoints, geometry);
    // The jaw moves only when the chins differ by a visible amount.
    const jaw = Math.abs(geometry.chinDrop) >= JAW_STILL_PX ? jawWarp(framePoints, geometry.axes, geometry.chinDrop, this.jawTriangles) : undefined;
    if (jaw) this.jawTriangles = jaw.triangles;
    const box = evenBox(jaw ? [geometry.outer, jaw.rest, jaw.moved] : [geometry.outer], 2, width, height);
    const bw = box.x1 - box.x0;
    const bh = box.y1 - box.y0;
    if (bw <= 0 || bh <= 0) return { box, points };
    const n = bw * bh;
    this.ensure(n);
    const base = yuvBoxToRgba(frame, width, height, box, this.base).subarray(0, n * 4);
    // The frame as it was: the jaw warp reads it, and the pixels that differ from it at the end are written back.
    const before = this.before.subarray(0, n * 4);
    before.set(base);
    const local = (points: Float64Array) => points.map((v, k) => v - (k % 2 === 0 ? box.x0 : box.y0));
    // 1. The frame's jaw to the entry's chin, in the frame's own pixels.
    if (jaw) warpMesh(before, base, bw, bh, jaw.triangles, local(jaw.rest), local(jaw.moved));
    // 2. The entry's mouth, warped to the frame's pose and blended in.
    const patch = this.patch.subarray(0, n * 4);
    warpMesh(entry.pixels, patch, bw, bh, geometry.triangles, geometry.rest, local(geometry.moved), { width: entry.width, height: entry.height });
    this.masks(geometry, box, n);
    blendSeamless({
      width: bw,
      height: bh,
      base,
      patch,
      covered: this.covered.subarray(0, n),
      alpha: this.alpha.subarray(0, n),
      cell: Math.max(2, CELL * geometry.axes.iod),
    });
    const changed = this.changed.subarray(0, n);
    // A pixel at a time (both are opaque: their alpha bytes are equal), not a byte at a time.
    const now = this.baseWords;
    const was = this.beforeWords;
    for (let p = 0; p < n; p++) changed[p] = now[p] !== was[p] ? 1 : 0;
    writeRgbaBox(frame, width, height, box, base, changed);
    return { box, points };
  }

  /** The blend weights (soft inside the blend ring) and the warp's coverage (inside the outer ring). */
  private masks(geometry: PatchGeometry, box: PixelBox, n: number): void {
    rasterRing(geometry.ring, box, Math.max(1.5, FEATHER * geometry.axes.iod), this.alpha.subarray(0, n));
    const inside = this.distance.subarray(0, n);
    rasterRing(geometry.outer, box, 0, inside);
    for (let p = 0; p < n; p++) this.covered[p] = inside[p]!;
  }

  private ensure(n: number): void {
    if (this.alpha.length >= n) return;
    this.base = new Uint8Array(n * 4);
    this.before = new Uint8Array(n * 4);
    this.baseWords = new Uint32Array(this.base.buffer);
    this.beforeWords = new Uint32Array(this.before.buffer);
    this.patch = new Uint8Array(n * 4);
    this.covered = new Uint8Array(n);
    this.changed = new Uint8Array(n);
    this.alpha = new Float32Array(n);
    this.distance = new Float32Array(n);
  }
}
