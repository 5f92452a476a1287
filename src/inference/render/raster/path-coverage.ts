/**
 * Anti-aliased coverage of a filled path, computed in TypeScript: the exact area of each pixel that the path covers
 * (non-zero winding, for paths whose subpaths do not overlap one another), as a canvas fills it with anti-aliasing.
 * It lets a frame fill a shape straight into its own pixels instead of drawing on a canvas and reading the canvas
 * back (see FrameRenderer: the head's outline below the jaw line, filled every frame).
 *
 * The path is recorded with the canvas's own calls (the subset {@link PathSink} names, under an {@link Affine}
 * transform set with `setTransform`, `translate` and `rotate`), so the code that describes a shape for a canvas
 * describes it here too. Curves are flattened to lines within {@link FLATNESS} of a pixel; each line adds, in the rows
 * it crosses, the signed area it leaves to its right in each cell it passes and its whole height to the cells past it
 * (a running sum along the row then gives each pixel's covered area).
 */
import type { Box } from '../compositor.js';
import { Affine } from './affine.js';
import { flattenCubic, flattenQuadratic } from './flatten.js';

/** The path calls a shape is described with: those of a canvas's 2D context that {@link PathCoverage} records. */
export interface PathSink {
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  quadraticCurveTo(cpx: number, cpy: number, x: number, y: number): void;
  bezierCurveTo(cp1x: number, cp1y: number, cp2x: number, cp2y: number, x: number, y: number): void;
  closePath(): void;
}

/** The length of a row of {@link PathCoverage.coverage}'s values for `box`. */
export function coverageStride(box: Box): number {
  return box.x1 - box.x0 + 1;
}

/** How far (pixels) a flattened curve may stray from the true one. */
export const FLATNESS = 0.005;

/** A path recorded in pixel space (see the module comment), then turned into coverage with {@link coverage}. */
export class PathCoverage extends Affine implements PathSink {
  /** The lines of the path, four numbers each (x0, y0, x1, y1), in pixels. */
  private lines: number[] = [];
  /** The cells {@link coverage} sums the lines in, and then returns; grown as needed. */
  private cells = new Float32Array(0);
  /** Per row of the last {@link coverage}, where the path covers it (see {@link rowSpans}). */
  private spans = new Int32Array(0);
  /** The current point and the start of the current subpath, in pixels; NaN before the first moveTo. */
  private x = NaN;
  private y = NaN;
  private startX = NaN;
  private startY = NaN;
  /** {@link line}, bound: what the curves' lines go to. */
  private readonly toPixel = (x: number, y: number): void => this.line(x, y);

  beginPath(): void {
    this.lines.length = 0;
    this.x = this.y = this.startX = this.startY = NaN;
  }

  moveTo(x: number, y: number): void {
    this.closePath();
    [this.x, this.y] = this.apply(x, y);
    this.startX = this.x;
    this.startY = this.y;
  }

  lineTo(x: number, y: number): void {
    const [px, py] = this.apply(x, y);
    this.line(px, py);
  }

  quadraticCurveTo(cpx: number, cpy: number, x: number, y: number): void {
    const [x1, y1] = this.apply(cpx, cpy);
    const [x2, y2] = this.apply(x, y);
    flattenQuadratic(this.x, this.y, x1, y1, x2, y2, FLATNESS, this.toPixel);
  }

  bezierCurveTo(cp1x: number, cp1y: number, cp2x: number, cp2y: number, x: number, y: number): void {
    const [x1, y1] = this.apply(cp1x, cp1y);
    const [x2, y2] = this.apply(cp2x, cp2y);
    const [x3, y3] = this.apply(x, y);
    flattenCubic(this.x, this.y, x1, y1, x2, y2, x3, y3, FLATNESS, this.toPixel);
  }

  closePath(): void {
    if (Number.isNaN(this.startX)) return;
    this.line(this.startX, this.startY);
  }

  /**
   * The whole pixels the path's lines reach (none before any line), one more on each side: no pixel outside them is
   * covered.
   */
  bounds(): Box | undefined {
    const { lines } = this;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (let i = 0; i < lines.length; i += 2) {
      x0 = Math.min(x0, lines[i]!);
      x1 = Math.max(x1, lines[i]!);
      y0 = Math.min(y0, lines[i + 1]!);
      y1 = Math.max(y1, lines[i + 1]!);
    }
    if (x0 > x1) return undefined;
    return { x0: Math.floor(x0) - 1, y0: Math.floor(y0) - 1, x1: Math.ceil(x1) + 1, y1: Math.ceil(y1) + 1 };
  }

  /**
   * The covered area (0 to 1) of each pixel of `box` (frame pixels, end exclusive) inside the path, row by row, each
   * row {@link coverageStride} values long (one more than the box is wide). The path is closed first, as a fill
   * closes it. The array is this object's own, overwritten by its next call.
   */
  coverage(box: Box): Float32Array {
    this.closePath();
    const width = box.x1 - box.x0;
    const height = Math.max(0, box.y1 - box.y0);
    // One cell more per row than the box: what a line passes on to the cells right of the box's last.
    const stride = width + 1;
    if (this.cells.length < stride * height) this.cells = new Float32Array(stride * height);
    const { cells, lines } = this;
    cells.fill(0, 0, stride * height);
    for (let i = 0; i < lines.length; i += 4) {
      addLine(cells, stride, box, lines[i]!, lines[i + 1]!, lines[i + 2]!, lines[i + 3]!);
    }
    if (this.spans.length < 4 * height) this.spans = new Int32Array(4 * height);
    const { spans } = this;
    for (let row = 0; row < height; row++) {
      const start = row * stride;
      const end = start + width;
      const at = row * 4;
      const x = box.x0 - start;
      // Where the row is covered (`first` to `last`, end exclusive) and wholly (`fullFirst` to `fullLast`, inclusive).
      let first = -1;
      let last = -1;
      let fullFirst = -1;
      let fullLast = -1;
      let full = 0;
      let sum = 0;
      for (let i = start; i < end; ) {
        sum += cells[i]!;
        // The cells up to the next one a line added to hold the same running sum: walked past, then filled at once.
        let next = i + 1;
        while (next < end && cells[next] === 0) next++;
        const value = coveredArea(sum);
        if (value === 0) {
          cells[i] = 0;
        } else {
          if (next - i === 1) cells[i] = value;
          else cells.fill(value, i, next);
          if (first < 0) first = i;
          last = next;
          if (value === 1) {
            if (fullFirst < 0) fullFirst = i;
            fullLast = next - 1;
            full += next - i;
          }
        }
        i = next;
      }
      if (first < 0) {
        spans[at] = spans[at + 1] = spans[at + 2] = spans[at + 3] = box.x0;
      } else if (fullFirst >= 0 && full === fullLast - fullFirst + 1) {
        spans[at] = x + first;
        spans[at + 1] = x + fullFirst;
        spans[at + 2] = x + fullLast + 1;
        spans[at + 3] = x + last;
      } else {
        // No wholly covered pixel, or more than one run of them: nothing in the row is known to be full.
        spans[at] = spans[at + 1] = spans[at + 2] = x + first;
        spans[at + 3] = x + last;
      }
    }
    return cells;
  }

  /**
   * What the last {@link coverage} found in each row of its box, four columns (frame pixels) a row: `[a, b, c, d]`,
   * the pixels from `a` to `d` (end exclusive) are covered and those from `b` to `c` wholly so (every one of them);
   * `a === d` in a row the path does not reach. The array is this object's own, overwritten by the next call.
   */
  rowSpans(): Int32Array {
    return this.spans;
  }

  /** A line from the current point to (`x`, `y`) (pixels), which becomes the current point. */
  private line(x: number, y: number): void {
    if (Number.isNaN(this.x)) {
      // A line with no current point starts a subpath there, as on a canvas.
      this.x = this.startX = x;
      this.y = this.startY = y;
      return;
    }
    if (this.y !== y) this.lines.push(this.x, this.y, x, y);
    this.x = x;
    this.y = y;
  }
}

/**
 * The covered area (0 to 1) of a pixel whose cells' running sum (see {@link addLine}) is `sum`, whichever way the path
 * winds: float sums of a wholly covered (or empty) pixel's pieces land a hair off 1 (or 0), and are taken as 1 (or 0).
 */
export function coveredArea(sum: number): number {
  const area = sum < 0 ? -sum : sum;
  return area > 0.9999 ? 1 : area < 0.0001 ? 0 : area;
}

/**
 * Adds line (`x0`, `y0`) → (`x1`, `y1`) (pixels) to `cells` (rows of `stride` cells covering `box`, plus one; a running
 * sum along a row then gives each pixel's signed covered area, see {@link PathCoverage.coverage}): in each
 * row of the box it crosses, its height there (signed: + downwards) split over the cells it passes in proportion to
 * the part of it in each, as the area right of it in that cell and the rest to the next cell. A part left of the box
 * counts in its first cell (all of it lies right of that part); a part right of the box adds nothing inside it.
 */
export function addLine(cells: Float32Array, stride: number, box: Box, x0: number, y0: number, x1: number, y1: number): void {
  const sign = y1 > y0 ? 1 : -1;
  if (y1 < y0) [x0, y0, x1, y1] = [x1, y1, x0, y0];
  const top = Math.max(y0, box.y0);
  const bottom = Math.min(y1, box.y1);
  if (top >= bottom) return;
  const slope = (x1 - x0) / (y1 - y0);
  for (let row = Math.floor(top); row < bottom; row++) {
    const ya = Math.max(top, row);
    const yb = Math.min(bottom, row + 1);
    if (yb <= ya) continue;
    const xa = x0 + (ya - y0) * slope;
    const xb = x0 + (yb - y0) * slope;
    addRowPiece(cells, (row - box.y0) * stride, stride, box.x0, xa, xb, sign * (yb - ya));
  }
}

/** One row's part of a line, from `xa` to `xb` (pixels), `height` high (signed), into the row at `base`. */
function addRowPiece(cells: Float32Array, base: number, stride: number, x0: number, xa: number, xb: number, height: number): void {
  const lo = Math.min(xa, xb);
  const hi = Math.max(xa, xb);
  const first = Math.floor(lo);
  if (hi - lo < 1e-9 || Math.ceil(hi) - first <= 1) {
    addCell(cells, base, stride, first - x0, height, (xa + xb) / 2 - first);
    return;
  }
  for (let cell = first; cell < hi; cell++) {
    const from = Math.max(lo, cell);
    const to = Math.min(hi, cell + 1);
    if (to <= from) continue;
    addCell(cells, base, stride, cell - x0, (height * (to - from)) / (hi - lo), (from + to) / 2 - cell);
  }
}

/**
 * A piece of a line `height` high (signed) whose mean x lies `offset` (0 to 1) into cell `col` of the row at `base`:
 * the area right of it (`1 − offset` of its height) in that cell, the rest in the next, so that every cell from there
 * on sums to its whole height.
 */
function addCell(cells: Float32Array, base: number, stride: number, col: number, height: number, offset: number): void {
  if (col < 0) {
    cells[base]! += height;
    return;
  }
  if (col >= stride) return;
  cells[base + col]! += height * (1 - offset);
  if (col + 1 < stride) cells[base + col + 1]! += height * offset;
}
