/**
 * Where a filled shape's pixels can differ between two frames, from the row spans of its coverage in each (see
 * PathCoverage.rowSpans): a pixel wholly covered in both, or uncovered in both, is the same in both; the rest lie
 * at the shape's edges or between its two outlines. FrameRenderer recomposes only these rectangles when the jaw
 * moves, instead of the whole lower face.
 */
import type { Box } from '../compositor.js';

/** The row spans of a filled shape (see PathCoverage.rowSpans) and the frame row of their first row. */
export interface RowSpans {
  y0: number;
  /** Four columns a row. */
  spans: Int32Array;
}

/**
 * The rectangles holding every pixel whose coverage may differ between shapes `a` and `b` (rows either lacks are
 * empty in it), gathered over strips of `strip` rows: per strip, one rectangle for the changes at the left edge and
 * one for those at the right edge (one for both where they meet).
 */
export function changedBoxes(a: RowSpans, b: RowSpans, strip: number): Box[] {
  const boxes: Box[] = [];
  const y0 = Math.min(a.y0, b.y0);
  const rows = Math.max(a.y0 + a.spans.length / 4, b.y0 + b.spans.length / 4) - y0;
  for (let top = 0; top < rows; top += strip) {
    const left = { x0: Infinity, x1: -Infinity };
    const right = { x0: Infinity, x1: -Infinity };
    let whole = false;
    const end = Math.min(rows, top + strip);
    for (let row = top; row < end; row++) {
      const [a0, a1, a2, a3] = rowOf(a, y0 + row);
      const [b0, b1, b2, b3] = rowOf(b, y0 + row);
      const emptyA = a0 === a3;
      const emptyB = b0 === b3;
      if (emptyA && emptyB) continue;
      if (emptyA || emptyB) {
        // Covered in one frame only: all of its covered pixels.
        const [from, to] = emptyA ? [b0, b3] : [a0, a3];
        grow(left, from, to);
        whole = true;
        continue;
      }
      // Wholly covered in both from `same0` to `same1`; the changes lie left and right of that.
      const same0 = Math.max(a1, b1);
      const same1 = Math.min(a2, b2);
      if (same0 >= same1) {
        grow(left, Math.min(a0, b0), Math.max(a3, b3));
        whole = true;
      } else {
        grow(left, Math.min(a0, b0), same0);
        grow(right, same1, Math.max(a3, b3));
      }
    }
    const y = { y0: y0 + top, y1: y0 + end };
    if (whole || (left.x1 > -Infinity && right.x1 > -Infinity && left.x1 >= right.x0)) {
      const x0 = Math.min(left.x0, right.x0);
      const x1 = Math.max(left.x1, right.x1);
      if (x0 < x1) boxes.push({ x0, x1, ...y });
      continue;
    }
    if (left.x0 < left.x1) boxes.push({ x0: left.x0, x1: left.x1, ...y });
    if (right.x0 < right.x1) boxes.push({ x0: right.x0, x1: right.x1, ...y });
  }
  return boxes;
}

/** Row `y` (a frame row) of `shape`: its four columns, or an empty row's where the shape has none. */
function rowOf(shape: RowSpans, y: number): [number, number, number, number] {
  const at = (y - shape.y0) * 4;
  if (at < 0 || at >= shape.spans.length) return [0, 0, 0, 0];
  const { spans } = shape;
  return [spans[at]!, spans[at + 1]!, spans[at + 2]!, spans[at + 3]!];
}

/** `range` widened to hold `from … to` (end exclusive); an empty one adds nothing. */
function grow(range: { x0: number; x1: number }, from: number, to: number): void {
  if (from >= to) return;
  range.x0 = Math.min(range.x0, from);
  range.x1 = Math.max(range.x1, to);
}
