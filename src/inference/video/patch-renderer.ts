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
  /** A copy of `base` (RGBA) over the outer ring's box, blended in place and copied back. */
  private inner = new Uint8Array(0);
  private covered = new Uint8Array(0);
  private changed = new Uint8Array(0);
  private alpha = new Float32Array(0);
  private distance = new Float32Array(0);
  /** The jaw mesh's last triangulations, reused while they stay valid (see `jawWarp`). */
  private readonly jawTopologies: Uint16Array[] = [];

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
    const jaw = Math.abs(geometry.chinDrop) >= JAW_STILL_PX ? jawWarp(framePoints, geometry.axes, geometry.chinDrop, this.jawTopologies) : undefined;
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
    const local = (points: Float64Array, at: PixelBox = box) => points.map((v, k) => v - (k % 2 === 0 ? at.x0 : at.y0));
    // 1. The frame's jaw to the entry's chin, in the frame's own pixels.
    if (jaw) warpMesh(before, base, bw, bh, jaw.triangles, local(jaw.rest), local(jaw.moved));
    // 2. The entry's mouth, warped to the frame's pose and blended in, over the outer ring's box only (the jaw's mesh
    //    reaches further out, below the chin: about half the box's pixels at a typical jaw move).
    const inner = evenBox([geometry.outer], 2, width, height);
    const iw = inner.x1 - inner.x0;
    const ih = inner.y1 - inner.y0;
    const m = iw * ih;
    const whole = m === n;
    const blended = whole ? base : this.inner.subarray(0, m * 4);
    if (!whole) copyRows(base, bw, inner.x0 - box.x0, inner.y0 - box.y0, blended, iw, ih, true);
    const patch = this.patch.subarray(0, m * 4);
    warpMesh(entry.pixels, patch, iw, ih, geometry.triangles, geometry.rest, local(geometry.moved, inner), { width: entry.width, height: entry.height });
    this.masks(geometry, inner, m);
    blendSeamless({
      width: iw,
      height: ih,
      base: blended,
      patch,
      covered: this.covered.subarray(0, m),
      alpha: this.alpha.subarray(0, m),
      cell: Math.max(2, CELL * geometry.axes.iod),
    });
    if (!whole) copyRows(base, bw, inner.x0 - box.x0, inner.y0 - box.y0, blended, iw, ih, false);
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
    this.inner = new Uint8Array(n * 4);
    this.covered = new Uint8Array(n);
    this.changed = new Uint8Array(n);
    this.alpha = new Float32Array(n);
    this.distance = new Float32Array(n);
  }
}

/**
 * Copies the `width × height` RGBA rectangle at (`x`, `y`) of `image` (`stride` pixels a row) into `rect` (`into`
 * true), or `rect` back into it.
 */
function copyRows(image: Uint8Array, stride: number, x: number, y: number, rect: Uint8Array, width: number, height: number, into: boolean): void {
  for (let row = 0; row < height; row++) {
    const at = ((y + row) * stride + x) * 4;
    const from = row * width * 4;
    if (into) rect.set(image.subarray(at, at + width * 4), from);
    else image.set(rect.subarray(from, from + width * 4), at);
  }
}
