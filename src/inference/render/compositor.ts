/**
 * Source-over composition of premultiplied RGBA pixels in plain TypeScript, straight into a frame
 * buffer the caller owns (for video, a slot of the shared frame ring). Reading a whole frame back
 * from the canvas costs a fresh 1 MB buffer per frame (the canvas offers no read into a caller's
 * buffer) plus its garbage collection; composing the cached layers here, and filling shapes whose
 * coverage is computed here (see {@link fillCovered}), leaves only the mouth and the glancing eyes
 * for the canvas to draw and give back.
 *
 * Pixels are 32-bit words of RGBA bytes (little-endian: alpha in the top byte), premultiplied by
 * alpha, as @napi-rs/canvas stores them.
 */
import type { PixelLayer } from './avatar-layers.js';
import { coverageStride } from './raster/path-coverage.js';

/** Premultiplied `source` over `dest`, rounded per channel; exact at alpha 0 and 255. */
export function over(source: number, dest: number): number {
  const keep = 255 - (source >>> 24);
  // Two channels at a time (red and blue, then green and alpha): 8 bits × 255 fits in 16.
  let rb = (dest & 0x00ff00ff) * keep + 0x00800080;
  rb = ((rb + ((rb >>> 8) & 0x00ff00ff)) >>> 8) & 0x00ff00ff;
  let ga = ((dest >>> 8) & 0x00ff00ff) * keep + 0x00800080;
  ga = (ga + ((ga >>> 8) & 0x00ff00ff)) & 0xff00ff00;
  // A premultiplied channel is at most the alpha, so the sums never carry into the next channel.
  return (source + ((rb | ga) >>> 0)) >>> 0;
}

/** Premultiplied `source` at `alpha` (0 to 255) of its strength: every channel times `alpha / 255`, rounded. */
export function scaled(source: number, alpha: number): number {
  let rb = (source & 0x00ff00ff) * alpha + 0x00800080;
  rb = ((rb + ((rb >>> 8) & 0x00ff00ff)) >>> 8) & 0x00ff00ff;
  let ga = ((source >>> 8) & 0x00ff00ff) * alpha + 0x00800080;
  ga = (ga + ((ga >>> 8) & 0x00ff00ff)) & 0xff00ff00;
  return (rb | ga) >>> 0;
}

/** A picture placed on a frame: its pixels, size and where its top-left corner goes. */
export interface Placement {
  x: number;
  y: number;
}

/** A rectangle in pixels, end exclusive. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * A cached layer prepared for fast composition: each row's runs of opaque pixels (copied as
 * blocks) and its partly transparent pixels (blended one by one); fully transparent pixels cost
 * nothing. Cartoon layers are mostly flat colour, so the blended pixels are their edges only.
 */
export class SpanLayer {
  readonly width: number;
  readonly height: number;
  private readonly pixels: Uint32Array;
  /** Per row, `[start, end)` pairs of opaque runs. */
  private readonly runs: Int32Array[];
  /** Indexes (row × width + column) of the partly transparent pixels, ascending. */
  private readonly partial: Int32Array;
  /** Where each row's partly transparent pixels start in {@link partial} (and, one past the last row, its length). */
  private readonly partialRows: Int32Array;

  /** From `rgba`: `width × height × 4` premultiplied bytes (copied). */
  constructor(rgba: Uint8Array, width: number, height: number) {
    if (rgba.byteLength !== width * height * 4) throw new RangeError(`expected ${width}x${height} RGBA pixels`);
    this.width = width;
    this.height = height;
    this.pixels = new Uint32Array(width * height);
    new Uint8Array(this.pixels.buffer).set(rgba);
    const partial: number[] = [];
    this.runs = [];
    for (let y = 0; y < height; y++) {
      const row: number[] = [];
      const base = y * width;
      for (let x = 0; x < width; ) {
        const alpha = this.pixels[base + x]! >>> 24;
        if (alpha === 255) {
          const start = x;
          while (x < width && this.pixels[base + x]! >>> 24 === 255) x++;
          row.push(start, x);
        } else {
          if (alpha !== 0) partial.push(base + x);
          x++;
        }
      }
      this.runs.push(Int32Array.from(row));
    }
    this.partial = Int32Array.from(partial);
    this.partialRows = new Int32Array(height + 1);
    for (let y = 0; y <= height; y++) this.partialRows[y] = lowerBound(this.partial, y * width);
  }

  /**
   * Composes this layer over `frame` (`frameWidth × frameHeight` words) at `at`, clipped to the
   * frame and to `clip` (frame pixels; default: the whole frame).
   */
  drawOver(frame: Uint32Array, frameWidth: number, frameHeight: number, at: Placement, clip?: Box): void {
    const { width, pixels } = this;
    const y0 = Math.max(0, (clip?.y0 ?? 0) - at.y);
    const y1 = Math.min(this.height, Math.min(frameHeight, clip?.y1 ?? frameHeight) - at.y);
    const x0 = Math.max(0, (clip?.x0 ?? 0) - at.x);
    const x1 = Math.min(width, Math.min(frameWidth, clip?.x1 ?? frameWidth) - at.x);
    if (y0 >= y1 || x0 >= x1) return;
    for (let y = y0; y < y1; y++) {
      const runs = this.runs[y]!;
      const source = y * width;
      const target = (at.y + y) * frameWidth + at.x;
      for (let i = 0; i < runs.length; i += 2) {
        const start = Math.max(runs[i]!, x0);
        const end = Math.min(runs[i + 1]!, x1);
        if (start < end) copyWords(frame, target + start, pixels, source + start, end - start);
      }
      // The row's partly transparent pixels, in column order: those from x0 on, up to x1.
      const { partial } = this;
      const last = this.partialRows[y + 1]!;
      for (let i = this.partialRows[y]!; i < last; i++) {
        const x = partial[i]! - source;
        if (x < x0) continue;
        if (x >= x1) break;
        frame[target + x] = over(pixels[source + x]!, frame[target + x]!);
      }
    }
  }
}

/**
 * Composes `source` (`width × height` premultiplied words, drawn this frame) over `frame` at `at`,
 * clipped to the frame and to `clip` (frame pixels; default: the whole frame): transparent pixels are
 * skipped, opaque ones copied, the rest blended.
 */
export function drawPixelsOver(
  frame: Uint32Array,
  frameWidth: number,
  frameHeight: number,
  source: Uint32Array,
  width: number,
  height: number,
  at: Placement,
  clip?: Box,
): void {
  const y0 = Math.max(0, (clip?.y0 ?? 0) - at.y);
  const y1 = Math.min(height, Math.min(frameHeight, clip?.y1 ?? frameHeight) - at.y);
  const x0 = Math.max(0, (clip?.x0 ?? 0) - at.x);
  const x1 = Math.min(width, Math.min(frameWidth, clip?.x1 ?? frameWidth) - at.x);
  for (let y = y0; y < y1; y++) {
    const from = y * width;
    const to = (at.y + y) * frameWidth + at.x;
    for (let x = x0; x < x1; x++) {
      const pixel = source[from + x]!;
      const alpha = pixel >>> 24;
      if (alpha === 255) frame[to + x] = pixel;
      else if (alpha !== 0) frame[to + x] = over(pixel, frame[to + x]!);
    }
  }
}

/**
 * Copies `count` words of `source` from `from` into `target` at `at`: a loop for short runs, where making a subarray
 * for `set` costs more than the copy.
 */
export function copyWords(target: Uint32Array, at: number, source: Uint32Array, from: number, count: number): void {
  if (count > SHORT_COPY) {
    target.set(source.subarray(from, from + count), at);
    return;
  }
  for (let i = 0; i < count; i++) target[at + i] = source[from + i]!;
}

/** Runs of at most this many words are copied by a loop (see copyWords). */
const SHORT_COPY = 48;

/** The first index of ascending `values` holding a value ≥ `value` (`values.length` when none does). */
function lowerBound(values: Int32Array, value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A fill of paint `paint`, placed with its corner at (`x`, `y`), over the covered parts of `box` (`coverage`, rows of coverageStride(box) values). */
export interface CoveredFill {
  coverage: Float32Array;
  /** Where the fill covers each row of `box` (see PathCoverage.rowSpans). */
  spans: Int32Array;
  box: Box;
  paint: PixelLayer;
  x: number;
  y: number;
}

/**
 * Fills `fill` over `words` (a frame `width` pixels wide) within `clip`: each pixel of its box takes the paint's
 * pixel where it is wholly covered, the paint at its coverage over it where partly, and stays as it is elsewhere and
 * outside the paint. The rows' spans say where to look: no pixel outside a row's covered extent is visited, and its
 * wholly covered run is copied at once (so they must be the coverage's own, as PathCoverage.rowSpans gives them).
 */
export function fillCovered(words: Uint32Array, width: number, fill: CoveredFill, clip: Box): void {
  const { coverage, spans, box, paint, x, y } = fill;
  const stride = coverageStride(box);
  const x0 = Math.max(clip.x0, box.x0, x);
  const x1 = Math.min(clip.x1, box.x1, x + paint.width);
  const y0 = Math.max(clip.y0, box.y0, y);
  const y1 = Math.min(clip.y1, box.y1, y + paint.height);
  for (let row = y0; row < y1; row++) {
    const cover = (row - box.y0) * stride - box.x0;
    const from = (row - y) * paint.width - x;
    const to = row * width;
    // The row's spans: pixels outside `a` to `d` are not covered, those from `b` to `c` wholly.
    const at = (row - box.y0) * 4;
    const a = Math.max(x0, spans[at]!);
    const d = Math.min(x1, spans[at + 3]!);
    const b = Math.min(d, Math.max(a, spans[at + 1]!));
    const c = Math.max(b, Math.min(d, spans[at + 2]!));
    blendCovered(words, coverage, paint.words, cover, from, to, a, b);
    if (b < c) copyWords(words, to + b, paint.words, from + b, c - b);
    blendCovered(words, coverage, paint.words, cover, from, to, c, d);
  }
}

/**
 * Pixels `x0` to `x1` (end exclusive) of a row of {@link fillCovered}: `paint`'s pixel where wholly covered (runs of
 * them copied at once), at its coverage over the pixel where partly, nothing where not. `cover`, `from` and `to` are
 * where column 0 of the row lies in `coverage`, `paint` and `words`.
 */
function blendCovered(words: Uint32Array, coverage: Float32Array, paint: Uint32Array, cover: number, from: number, to: number, x0: number, x1: number): void {
  for (let col = x0; col < x1; ) {
    const c = coverage[cover + col]!;
    if (c >= 1) {
      let end = col + 1;
      while (end < x1 && coverage[cover + end]! >= 1) end++;
      copyWords(words, to + col, paint, from + col, end - col);
      col = end;
      continue;
    }
    if (c > 0) words[to + col] = over(scaled(paint[from + col]!, Math.round(c * 255)), words[to + col]!);
    col++;
  }
}
