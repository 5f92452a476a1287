/**
 * Between a yuv420p frame (BT.601, limited range: what ffmpeg decodes H.264 to and what the encoder takes) and the
 * RGBA patches the face is measured and redrawn in. Only the patch is converted, and only the pixels a patch
 * changed are written back, so the rest of the frame stays the decoder's bytes exactly.
 */

/** A rectangle of frame pixels: `x0, y0` inclusive, `x1, y1` exclusive. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const clamp8 = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);

/**
 * The pixels of `box` (within the frame) of the `width × height` yuv420p `frame` as RGBA (opaque), row by row,
 * `(x1 − x0) × (y1 − y0)` pixels, into `out` when given (large enough) or a new array.
 */
export function yuvBoxToRgba(frame: Uint8Array, width: number, height: number, box: PixelBox, out?: Uint8Array): Uint8Array {
  const w = box.x1 - box.x0;
  const h = box.y1 - box.y0;
  const rgba = out ?? new Uint8Array(w * h * 4);
  const cw = width >> 1;
  const uPlane = width * height;
  const vPlane = uPlane + cw * (height >> 1);
  let o = 0;
  for (let y = box.y0; y < box.y1; y++) {
    const row = y * width;
    const crow = (y >> 1) * cw;
    for (let x = box.x0; x < box.x1; x++) {
      const c = 298 * (frame[row + x]! - 16);
      const d = frame[uPlane + crow + (x >> 1)]! - 128;
      const e = frame[vPlane + crow + (x >> 1)]! - 128;
      rgba[o] = clamp8((c + 409 * e + 128) >> 8);
      rgba[o + 1] = clamp8((c - 100 * d - 208 * e + 128) >> 8);
      rgba[o + 2] = clamp8((c + 516 * d + 128) >> 8);
      rgba[o + 3] = 255;
      o += 4;
    }
  }
  return rgba;
}

/**
 * Writes the RGBA `patch` (the size of `box`) into the yuv420p `frame` where `changed` (one byte a patch pixel,
 * non-zero: the patch changed it) says so: luma pixel by pixel; the chroma of a 2×2 block from the patch's mean of
 * that block when any of its pixels changed. Other bytes of the frame are not touched. `box` must be even-aligned.
 */
export function writeRgbaBox(frame: Uint8Array, width: number, height: number, box: PixelBox, patch: Uint8Array, changed: Uint8Array): void {
  if ((box.x0 | box.y0 | box.x1 | box.y1) & 1) throw new RangeError('the box must be even-aligned');
  const w = box.x1 - box.x0;
  const cw = width >> 1;
  const uPlane = width * height;
  const vPlane = uPlane + cw * (height >> 1);
  for (let y = box.y0; y < box.y1; y += 2) {
    for (let x = box.x0; x < box.x1; x += 2) {
      const p = (y - box.y0) * w + (x - box.x0);
      if (!(changed[p]! | changed[p + 1]! | changed[p + w]! | changed[p + w + 1]!)) continue;
      const top = y * width + x;
      const o0 = p * 4;
      const o1 = o0 + 4;
      const o2 = o0 + w * 4;
      const o3 = o2 + 4;
      if (changed[p]) frame[top] = luma(patch, o0);
      if (changed[p + 1]) frame[top + 1] = luma(patch, o1);
      if (changed[p + w]) frame[top + width] = luma(patch, o2);
      if (changed[p + w + 1]) frame[top + width + 1] = luma(patch, o3);
      const r = patch[o0]! + patch[o1]! + patch[o2]! + patch[o3]!;
      const g = patch[o0 + 1]! + patch[o1 + 1]! + patch[o2 + 1]! + patch[o3 + 1]!;
      const b = patch[o0 + 2]! + patch[o1 + 2]! + patch[o2 + 2]! + patch[o3 + 2]!;
      const c = (y >> 1) * cw + (x >> 1);
      frame[uPlane + c] = ((-38 * r - 74 * g + 112 * b + 512) >> 10) + 128;
      frame[vPlane + c] = ((112 * r - 94 * g - 18 * b + 512) >> 10) + 128;
    }
  }
}

/** BT.601 limited-range luma of the RGBA pixel at byte offset `o`. */
const luma = (rgba: Uint8Array, o: number) => ((66 * rgba[o]! + 129 * rgba[o + 1]! + 25 * rgba[o + 2]! + 128) >> 8) + 16;

/**
 * The square of side `side` whose top-left corner is frame point (`x`, `y`), as `size × size` RGBA pixels (outside
 * the frame: black): each pixel the mean of the frame pixels it covers (a box filter, so a large face scaled down
 * does not alias), from the luma at full resolution.
 */
export function yuvSquareToRgba(frame: Uint8Array, width: number, height: number, x: number, y: number, side: number, size: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(size * size * 4);
  const step = side / size;
  const taps = Math.max(1, Math.min(4, Math.round(step)));
  const cw = width >> 1;
  const uPlane = width * height;
  const vPlane = uPlane + cw * (height >> 1);
  // The frame columns and rows each output pixel's taps read (-1: outside the frame), computed once per column and
  // per row instead of once per pixel.
  const columns = tapPositions(x, step, size, taps, width);
  const rows = tapPositions(y, step, size, taps, height);
  let o = 0;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++, o += 4) {
      let yy = 0;
      let uu = 0;
      let vv = 0;
      let n = 0;
      for (let b = 0; b < taps; b++) {
        const fy = rows[j * taps + b]!;
        if (fy < 0) continue;
        const lumaRow = fy * width;
        const chromaRow = (fy >> 1) * cw;
        for (let a = 0; a < taps; a++) {
          const fx = columns[i * taps + a]!;
          if (fx < 0) continue;
          yy += frame[lumaRow + fx]!;
          const c = chromaRow + (fx >> 1);
          uu += frame[uPlane + c]!;
          vv += frame[vPlane + c]!;
          n++;
        }
      }
      if (n === 0) {
        out[o + 3] = 255;
        continue;
      }
      const c = 298 * (yy / n - 16);
      const d = uu / n - 128;
      const e = vv / n - 128;
      out[o] = (c + 409 * e + 128) / 256;
      out[o + 1] = (c - 100 * d - 208 * e + 128) / 256;
      out[o + 2] = (c + 516 * d + 128) / 256;
      out[o + 3] = 255;
    }
  }
  return out;
}

/**
 * For each of `size` output positions along one axis and each of its `taps`, the frame coordinate it reads: the
 * floor of `start + (k + (t + 0.5) / taps) * step`, or -1 where that falls outside `[0, limit)`.
 */
function tapPositions(start: number, step: number, size: number, taps: number, limit: number): Int32Array {
  const positions = new Int32Array(size * taps);
  for (let k = 0; k < size; k++) {
    for (let t = 0; t < taps; t++) {
      const p = Math.floor(start + (k + (t + 0.5) / taps) * step);
      positions[k * taps + t] = p >= 0 && p < limit ? p : -1;
    }
  }
  return positions;
}

/**
 * Mixes `other` into `frame` (both yuv420p, `width × height`) with weight `w` of `other`, within `box` (even-aligned;
 * the whole frame by default).
 */
export function mixFrames(frame: Uint8Array, other: Uint8Array, width: number, height: number, w: number, box: PixelBox = { x0: 0, y0: 0, x1: width, y1: height }): void {
  const keep = 1 - w;
  for (let y = box.y0; y < box.y1; y++) {
    for (let p = y * width + box.x0, end = y * width + box.x1; p < end; p++) frame[p] = (frame[p]! * keep + other[p]! * w + 0.5) | 0;
  }
  const cw = width >> 1;
  const planes = [width * height, width * height + cw * (height >> 1)];
  for (const plane of planes) {
    for (let y = box.y0 >> 1; y < box.y1 >> 1; y++) {
      for (let p = plane + y * cw + (box.x0 >> 1), end = plane + y * cw + (box.x1 >> 1); p < end; p++) frame[p] = (frame[p]! * keep + other[p]! * w + 0.5) | 0;
    }
  }
}
