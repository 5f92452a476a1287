/**
 * Piecewise-affine warp: each triangle of the mesh at its moved position is filled with the photo's pixels
 * from the same triangle at rest, sampled bilinearly. Pixel centres on an edge shared by two triangles go to
 * exactly one of them (each edge's function is evaluated from its lower vertex index, so both triangles see
 * the same value), so the warped mesh has neither gaps nor seams.
 */
import { bytesOf, wordsOf } from '../render/rgba-words.js';

/** Below this shift (pixels) a vertex counts as still; a triangle with three still vertices is not redrawn. */
const STILL = 1e-3;

/**
 * Warps `source` (RGBA, `width`×`height`) into `target` over every triangle of `triangles` that moved
 * from `rest` to `moved` (both `x, y` per point). Pixels of still triangles are left as they are.
 * With `sourceSize`, `source` is another image of that size (`rest` in its pixels, `target` still
 * `width`×`height`), and every triangle is drawn.
 */
export function warpMesh(
  source: Uint8Array,
  target: Uint8Array,
  width: number,
  height: number,
  triangles: Uint16Array,
  rest: Float64Array,
  moved: Float64Array,
  sourceSize?: { width: number; height: number },
): void {
  const size = sourceSize ?? { width, height };
  const words = { source: wordsOf(source), target: wordsOf(target) };
  for (let t = 0; t < triangles.length; t += 3) {
    const a = triangles[t]!;
    const b = triangles[t + 1]!;
    const c = triangles[t + 2]!;
    if (!sourceSize && still(rest, moved, a) && still(rest, moved, b) && still(rest, moved, c)) continue;
    warpTriangle(words.source, words.target, width, height, size, rest, moved, a, b, c);
  }
  // A target that was not aligned was drawn into a copy; copy it back.
  if (words.target.buffer !== target.buffer) target.set(bytesOf(words.target));
}

/** Whether this machine stores a word's low byte first (RGBA bytes then read as 0xAABBGGRR). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Where each channel of an RGBA pixel read as a word lies (bit shifts), and its alpha at 255. */
const R = LITTLE_ENDIAN ? 0 : 24;
const G = LITTLE_ENDIAN ? 8 : 16;
const B = LITTLE_ENDIAN ? 16 : 8;
const OPAQUE = LITTLE_ENDIAN ? 0xff000000 : 0xff;

function still(rest: Float64Array, moved: Float64Array, i: number): boolean {
  return Math.abs(rest[2 * i]! - moved[2 * i]!) < STILL && Math.abs(rest[2 * i + 1]! - moved[2 * i + 1]!) < STILL;
}

/** An edge function `e(x, y) = ex·x + ey·y + e0`, positive inside the triangle (see {@link edge}). */
interface Edge {
  ex: number;
  ey: number;
  e0: number;
  /** Whether a pixel centre exactly on the edge belongs to this triangle. */
  owns: boolean;
}

/**
 * The edge from vertex `i` to `j` of a triangle (whose third vertex is `k`): computed from the lower index
 * to the higher, then signed to be positive towards `k`, so that a shared edge gives its two triangles
 * exactly opposite values, and a pixel centre on it belongs to the triangle the edge's sign favours.
 */
function edge(points: Float64Array, i: number, j: number, k: number): Edge {
  const [p, q] = i < j ? [i, j] : [j, i];
  const px = points[2 * p]!;
  const py = points[2 * p + 1]!;
  const ex = -(points[2 * q + 1]! - py);
  const ey = points[2 * q]! - px;
  const e0 = -(ex * px + ey * py);
  const side = ex * points[2 * k]! + ey * points[2 * k + 1]! + e0;
  return side >= 0 ? { ex, ey, e0, owns: true } : { ex: -ex, ey: -ey, e0: -e0, owns: false };
}

function warpTriangle(
  source: Uint32Array,
  target: Uint32Array,
  width: number,
  height: number,
  sourceSize: { width: number; height: number },
  rest: Float64Array,
  moved: Float64Array,
  a: number,
  b: number,
  c: number,
): void {
  const ax = moved[2 * a]!;
  const ay = moved[2 * a + 1]!;
  const bx = moved[2 * b]!;
  const by = moved[2 * b + 1]!;
  const cx = moved[2 * c]!;
  const cy = moved[2 * c + 1]!;
  const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  if (Math.abs(area) < 1e-6) return;
  // Frame position → rest position: the affine map that takes the moved triangle onto the rest one.
  const sax = rest[2 * a]!;
  const say = rest[2 * a + 1]!;
  const dbx = rest[2 * b]! - sax;
  const dby = rest[2 * b + 1]! - say;
  const dcx = rest[2 * c]! - sax;
  const dcy = rest[2 * c + 1]! - say;
  // Barycentric weights of b and c at (x, y): wb = ((cy−ay)(x−ax) − (cx−ax)(y−ay)) / area, wc = ((ay−by)(x−ax) + (bx−ax)(y−ay)) / area.
  const wbx = (cy - ay) / area;
  const wby = -(cx - ax) / area;
  const wcx = -(by - ay) / area;
  const wcy = (bx - ax) / area;
  const mxx = dbx * wbx + dcx * wcx;
  const mxy = dbx * wby + dcx * wcy;
  const myx = dby * wbx + dcy * wcx;
  const myy = dby * wby + dcy * wcy;
  const e1 = edge(moved, a, b, c);
  const e2 = edge(moved, b, c, a);
  const e3 = edge(moved, c, a, b);
  const edges = [e1, e2, e3];
  const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
  const x1 = Math.min(width - 1, Math.ceil(Math.max(ax, bx, cx)));
  const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
  const y1 = Math.min(height - 1, Math.ceil(Math.max(ay, by, cy)));
  for (let y = y0; y <= y1; y++) {
    const py = y + 0.5;
    // The row's span inside all three edges, from each edge's crossing (one pixel wider, then tested exactly).
    let from = x0;
    let to = x1;
    for (const e of edges) {
      const rest0 = e.ey * py + e.e0;
      if (e.ex > 1e-12) from = Math.max(from, Math.floor(-rest0 / e.ex - 0.5) - 1);
      else if (e.ex < -1e-12) to = Math.min(to, Math.ceil(-rest0 / e.ex - 0.5) + 1);
      else if (rest0 < 0) to = from - 1;
    }
    // Exact ends: the edge functions are evaluated as for every pixel (see edge()), only at the span's ends.
    while (from <= to && !inside(e1, e2, e3, from + 0.5, py)) from++;
    while (to >= from && !inside(e1, e2, e3, to + 0.5, py)) to--;
    if (from > to) continue;
    // The rest position of the span's first pixel centre (pixel-index coordinates for sampling).
    const sx = sax + mxx * (from + 0.5 - ax) + mxy * (py - ay) - 0.5;
    const sy = say + myx * (from + 0.5 - ax) + myy * (py - ay) - 0.5;
    sampleSpan(source, target, sourceSize.width, sourceSize.height, y * width + from, to - from + 1, sx, sy, mxx, myx);
  }
}

function inside(e1: Edge, e2: Edge, e3: Edge, px: number, py: number): boolean {
  const f1 = e1.ex * px + e1.ey * py + e1.e0;
  const f2 = e2.ex * px + e2.ey * py + e2.e0;
  const f3 = e3.ex * px + e3.ey * py + e3.e0;
  return (f1 > 0 || (f1 === 0 && e1.owns)) && (f2 > 0 || (f2 === 0 && e2.owns)) && (f3 > 0 || (f3 === 0 && e3.owns));
}

/**
 * Writes `count` pixels of `target` from pixel `p` on, each sampled bilinearly from `source` at (`sx`, `sy`)
 * (pixel-index coordinates, clamped to the image), stepping (`dx`, `dy`) per pixel. Both images are read and written a
 * pixel (a 32-bit word, RGBA bytes) at a time, each channel rounded on its own.
 */
function sampleSpan(source: Uint32Array, target: Uint32Array, width: number, height: number, p: number, count: number, sx: number, sy: number, dx: number, dy: number): void {
  // Samples stay just inside the right and bottom edges, so that the 2×2 neighbourhood exists.
  const lastX = Math.max(0, width - 1.000001);
  const lastY = Math.max(0, height - 1.000001);
  for (let k = 0; k < count; k++, p++, sx += dx, sy += dy) {
    const cx = sx < 0 ? 0 : sx > lastX ? lastX : sx;
    const cy = sy < 0 ? 0 : sy > lastY ? lastY : sy;
    const ix = cx | 0;
    const iy = cy | 0;
    const fx = cx - ix;
    const fy = cy - iy;
    const i00 = iy * width + ix;
    const i01 = i00 + width;
    const w00 = (1 - fx) * (1 - fy);
    const w10 = fx * (1 - fy);
    const w01 = (1 - fx) * fy;
    const w11 = fx * fy;
    const p00 = source[i00]!;
    const p10 = source[i00 + 1]!;
    const p01 = source[i01]!;
    const p11 = source[i01 + 1]!;
    const r = (((p00 >>> R) & 255) * w00 + ((p10 >>> R) & 255) * w10 + ((p01 >>> R) & 255) * w01 + ((p11 >>> R) & 255) * w11 + 0.5) | 0;
    const g = (((p00 >>> G) & 255) * w00 + ((p10 >>> G) & 255) * w10 + ((p01 >>> G) & 255) * w01 + ((p11 >>> G) & 255) * w11 + 0.5) | 0;
    const b = (((p00 >>> B) & 255) * w00 + ((p10 >>> B) & 255) * w10 + ((p01 >>> B) & 255) * w01 + ((p11 >>> B) & 255) * w11 + 0.5) | 0;
    target[p] = (OPAQUE | (r << R) | (g << G) | (b << B)) >>> 0;
  }
}
